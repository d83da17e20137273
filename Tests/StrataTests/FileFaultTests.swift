import Foundation
import GRDB
import StrataRandom
import Testing
@testable import Strata

/// Files that cannot be written or are damaged (issue 12, "Proof under faults"). Each store is
/// opened and read by a child process (`StrataProcessProbe read`), so a trap in Strata fails
/// the test with the child's signal instead of taking the test runner down; the child says
/// `read <digest> <items>` or `error <code>`, and, asked to, tries one save:
/// `saved` or `save-error <code> hasChanges=<bool>`.
///
/// File modes do not stop root, so a probe started by root drops to `nobody` first
/// (`STRATA_DROP_PRIVILEGES=1`); the modes below stop either user.
@Suite(.serialized) struct FileFaultTests {
    /// A crash-model store with `items` items (with owners and tags), closed (its WAL
    /// checkpointed into the file). Returns the digest of its graph.
    @discardableResult
    static func makeStore(_ url: URL, items: Int = 40, text: Int = 20) async throws -> String {
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: 1), store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let digest = try await context.perform { () throws -> String in
            let tag = try context.insert(entityNamed: "Tag")
            try tag.setValue("t", forKey: "label")
            for o in 0..<max(1, items / 10) {
                let owner = try context.insert(entityNamed: "Owner")
                try owner.setValue("o\(o)", forKey: "name")
                for i in 0..<10 where o * 10 + i < items {
                    let item = try context.insert(entityNamed: "Item")
                    try item.setValue("i\(o)-\(i)-" + String(repeating: "x", count: text), forKey: "name")
                    try item.setValue(Int64(i), forKey: "value")
                    try item.setValue(owner, forKey: "owner")
                    if i % 2 == 0 { try item.setValue(Set([tag]), forKey: "tags") }
                }
            }
            try context.save()
            context.reset()
            return try CrashState.read(context).digest
        }
        try coordinator.close()
        return digest
    }

    /// Runs the probe's `read` role on `url` (and a save when `write`); returns its stdout lines.
    /// `asOtherUser`: as `nobody` when the tests run as root (for the file-mode tests).
    static func probeRead(_ url: URL, write: Bool = false, asOtherUser: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String] {
        let probe = try ProbeProcess(["read", url.path, "1"] + (write ? ["write"] : []), environment: asOtherUser ? ["STRATA_DROP_PRIVILEGES": "1"] : [:])
        let status = try await probe.finish(timeout: 60)
        #expect(status == .exited(0), "the probe did not finish cleanly (it \(status)): \(probe.errors)", sourceLocation: sourceLocation)
        return probe.lines
    }

    static func setMode(_ mode: Int16, _ url: URL) throws {
        try FileManager.default.setAttributes([.posixPermissions: NSNumber(value: mode)], ofItemAtPath: url.path)
    }

    // MARK: - Read-only

    @Test func aReadOnlyFileIsReadAndASaveIsAReadOnlyErrorThatKeepsTheChanges() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let digest = try await Self.makeStore(url)
        let before = try Data(contentsOf: url)
        try Self.setMode(0o777, directory.url)  // the -wal and -shm files can be made
        try Self.setMode(0o444, url)
        defer { try? Self.setMode(0o644, url); try? Self.setMode(0o755, directory.url) }
        let lines = try await Self.probeRead(url, write: true, asOtherUser: true)
        #expect(lines == ["read \(digest) 40", "save-error readOnlyStore hasChanges=true"])
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func turningHistoryOnInAReadOnlyFileIsAReadOnlyError() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try await Self.makeStore(url)  // without history
        let before = try Data(contentsOf: url)
        try Self.setMode(0o777, directory.url)
        try Self.setMode(0o444, url)
        defer { try? Self.setMode(0o644, url); try? Self.setMode(0o755, directory.url) }
        // The mixed role opens with StoreOptions.recordsHistory, which must write the history tables.
        let probe = try ProbeProcess(["mixed", url.path, "1", "1", "1"], environment: ["STRATA_DROP_PRIVILEGES": "1"])
        let status = try await probe.finish(timeout: 60)
        #expect(status == .exited(2))
        #expect(probe.errors.contains("StrataError.readOnlyStore"), "\(probe.errors)")
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aReadOnlyFolderWhereTheWALCannotBeMadeIsAReadOnlyError() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try await Self.makeStore(url)
        let before = try Data(contentsOf: url)
        try Self.setMode(0o666, url)
        try Self.setMode(0o555, directory.url)  // no -wal, no -shm
        defer { try? Self.setMode(0o755, directory.url); try? Self.setMode(0o644, url) }
        let lines = try await Self.probeRead(url, write: true, asOtherUser: true)
        #expect(lines == ["error readOnlyStore"])
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func aNewStoreInAReadOnlyFolderIsAReadOnlyError() async throws {
        let directory = TemporaryDirectory()
        try Self.setMode(0o555, directory.url)
        defer { try? Self.setMode(0o755, directory.url) }
        let lines = try await Self.probeRead(directory.file(), write: true, asOtherUser: true)
        #expect(lines == ["error readOnlyStore"])
        #expect(!FileManager.default.fileExists(atPath: directory.file().path))
    }

    // MARK: - Damaged files

    /// Damages a copy of a good store with `damage`, has the probe read it, and expects one of
    /// `codes` (never a crash, never a silent success); the damaged file is left as it was.
    ///
    /// `strict`: the damage is found before the store is opened for writing, so the file is
    /// byte for byte what it was. Otherwise it is found only when a page is read: opening the
    /// store for writing (GRDB readies the WAL by creating and dropping a table) may have
    /// rewritten page 1 (SQLite's file header and schema) and appended a page, but every other
    /// page, the damaged one included, is what it was.
    func expectDamage(_ codes: Set<String>, items: Int = 400, strict: Bool = false, sourceLocation: SourceLocation = #_sourceLocation,
                      _ damage: (inout Data, _ pageSize: Int, _ itemRoot: Int) throws -> Void) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try await Self.makeStore(url, items: items, text: 200)
        let queue = try DatabaseQueue(path: url.path)
        let (pageSize, root) = try await queue.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096,
             try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'Item'") ?? 2)
        }
        try queue.close()
        var data = try Data(contentsOf: url)
        try damage(&data, pageSize, root)
        try data.write(to: url)
        let lines = try await Self.probeRead(url, sourceLocation: sourceLocation)
        let code = lines.first.flatMap { $0.hasPrefix("error ") ? String($0.dropFirst(6)) : nil }
        #expect(code.map(codes.contains) == true, "expected an error in \(codes.sorted()), the probe said \(lines)", sourceLocation: sourceLocation)
        let after = try Data(contentsOf: url)
        if strict {
            #expect(after == data, "the damaged file changed", sourceLocation: sourceLocation)
        } else {
            let changed = Set((4096..<min(after.count, data.count)).filter { after[$0] != data[$0] }.map { $0 / 4096 + 1 }).sorted()
            #expect(after.count >= data.count && changed.isEmpty, "the damaged file changed beyond page 1: pages \(changed)", sourceLocation: sourceLocation)
        }
    }

    @Test func aGarbageHeaderIsNotAStore() async throws {
        try await expectDamage(["notAStore"], strict: true) { data, _, _ in
            for i in 0..<100 { data[i] = UInt8(truncatingIfNeeded: i &* 37 &+ 11) }
        }
    }

    @Test func aDamagedHeaderBehindTheMagicIsACorruptStore() async throws {
        // The page size (bytes 16–17) becomes 3, which no SQLite file has.
        try await expectDamage(["corruptStore"], strict: true) { data, _, _ in
            data[16] = 0
            data[17] = 3
        }
    }

    @Test func aTruncatedFileIsACorruptStore() async throws {
        try await expectDamage(["corruptStore"]) { data, _, _ in data = data.prefix(data.count / 2) }
    }

    @Test func aFileCutInsideItsFirstPageIsACorruptStoreOrNotAStore() async throws {
        try await expectDamage(["corruptStore", "notAStore"], strict: true) { data, _, _ in data = data.prefix(60) }
    }

    @Test func aDamagedTablePageIsACorruptStore() async throws {
        // The Item table's root page gets a page type that does not exist.
        try await expectDamage(["corruptStore"]) { data, pageSize, root in
            data[(root - 1) * pageSize] = 0x7F
        }
    }

    @Test(arguments: ["UPDATE _strata_metadata SET value = 'not-a-uuid' WHERE key = 'storeUUID'",
                      "DELETE FROM _strata_metadata WHERE key = 'modelHash'"])
    func aMetadataTableEditedByHandIsACorruptStoreAndUntouched(edit: String) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try await Self.makeStore(url)
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { try $0.execute(sql: edit) }
        try queue.close()
        let before = try Data(contentsOf: url)
        #expect(try await Self.probeRead(url, write: true) == ["error corruptStore"])
        #expect(try Data(contentsOf: url) == before)
    }

    /// Random bytes flipped in random pages: SQLite has no page checksums, so a flip inside a
    /// value can go unnoticed (the read then succeeds with that value); every other outcome must
    /// be a typed error, never a trap. The probe's clean exit is what this checks.
    @Test(arguments: 0..<8) func flippedBytesInAPageNeverCrash(variant: Int) async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        try await Self.makeStore(url, items: 400, text: 200)
        var data = try Data(contentsOf: url)
        var random = SplitMix64(seed: UInt64(variant) &* 0x9E37_79B9 &+ 12)
        let pageSize = 4096
        let page = Int.random(in: 1..<(data.count / pageSize), using: &random)
        for _ in 0..<16 {
            let offset = page * pageSize + Int.random(in: 0..<pageSize, using: &random)
            data[offset] ^= UInt8.random(in: 1...255, using: &random)
        }
        try data.write(to: url)
        let lines = try await Self.probeRead(url)
        let allowed = ["corruptStore", "undecodableValue", "notAStore", "storeFailure"]
        #expect(lines.count == 1 && (lines[0].hasPrefix("read ") || allowed.contains { lines[0] == "error \($0)" }),
                "variant \(variant), page \(page): \(lines)")
    }
}

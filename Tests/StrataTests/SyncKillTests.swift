import Foundation
import Strata
import StrataSync
import Testing

/// A sync peer killed at random moments (issue 9, "crashes between steps"; issue 12's kill
/// harness): a child process (`StrataProcessProbe sync`) saves and syncs in a loop and is
/// SIGKILLed — during attach, an export, an upload, a merge or the merge's save — again and
/// again, while a second peer in this process keeps editing. Afterwards both peers sync until
/// quiet and must hold the same objects: every save the child acknowledged, every one of the
/// other peer's, none twice. 6 kills in CI, 60 with `STRATA_LONG=1`.
@Suite struct SyncKillTests {
    static let kills = ProcessInfo.processInfo.environment["STRATA_LONG"] == nil ? 6 : 60

    @Test func aPeerKilledWhileSyncingLosesAndDuplicatesNothing() async throws {
        let directory = TemporaryDirectory()
        let cloud = directory.url.appendingPathComponent("cloud")
        try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
        let childStore = directory.file("child.sqlite").path
        let other = try await Self.peer(store: directory.file("other.sqlite"), cloud: cloud)
        try await other.ensemble.attach()
        var generator = SystemRandomNumberGenerator()
        var saved: Set<String> = []
        var otherSaved: Set<String> = []
        for round in 0..<Self.kills {
            let child = try ProbeProcess(["sync", childStore, cloud.path, "child", "1000000"])
            // Early kills land in attach and the first export; later ones anywhere in a sync.
            if round > 0 { _ = try await child.waitForLine { $0.hasPrefix("synced ") } }
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...250, using: &generator)))
            child.kill()
            _ = try await child.finish(timeout: 60)
            saved.formUnion(child.lines.filter { $0.hasPrefix("saved ") }.map { String($0.dropFirst(6)) })
            #expect(!child.errors.contains("sync child:"), "round \(round): the child failed: \(child.errors)")
            otherSaved.formUnion(try await other.insert(count: 3, round: round))
            try await other.ensemble.sync()
        }
        // The child's peer, reopened in this process (its store and sync state as the kill left them).
        let child = try await Self.peer(store: URL(fileURLWithPath: childStore), cloud: cloud)
        #expect(await child.ensemble.isAttached)
        for _ in 0..<3 {
            try await child.ensemble.sync()
            try await other.ensemble.sync()
        }
        let childTokens = try await child.tokens()
        let otherTokens = try await other.tokens()
        #expect(childTokens.count == Set(childTokens).count, "an entry is duplicated on the killed peer")
        #expect(otherTokens.count == Set(otherTokens).count, "an entry is duplicated on the other peer")
        #expect(saved.subtracting(otherTokens).isEmpty, "acknowledged saves of the killed peer did not arrive")
        #expect(otherSaved.subtracting(childTokens).isEmpty, "the other peer's saves did not reach the killed peer")
        #expect(try await child.ensemble.canonicalDump() == other.ensemble.canonicalDump())
    }

    struct Peer {
        let coordinator: StoreCoordinator
        let ensemble: Ensemble

        func insert(count: Int, round: Int) async throws -> [String] {
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            return try await context.perform {
                var tokens: [String] = []
                for n in 0..<count {
                    let entry = try context.insert(entityNamed: "Entry")
                    let token = "other-\(round)-\(n)-\(UUID().uuidString)"
                    try entry.setValue(token, forKey: "token")
                    try entry.setValue("other", forKey: "writer")
                    tokens.append(token)
                }
                try context.save()
                return tokens
            }
        }

        func tokens() async throws -> [String] {
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            return try await context.perform {
                try context.fetch(FetchRequest<ManagedObject>(entityName: "Entry")).compactMap { $0.value(forKey: "token") as? String }
            }
        }
    }

    /// A peer with the probe's model (Entry and Tally, as dynamic entities of the same names).
    static func peer(store: URL, cloud: URL) async throws -> Peer {
        var options = StoreOptions()
        options.recordsHistory = true
        let model = try ObjectModel(entities: [
            EntityDescription("Entry", attributes: [
                AttributeDescription("token", type: .string, isOptional: false, defaultValue: .string(""), isUnique: true),
                AttributeDescription("writer", type: .string, isOptional: false, defaultValue: .string("")),
                AttributeDescription("sequence", type: .int64, isOptional: false, defaultValue: .integer(0)),
            ]),
            EntityDescription("Tally", attributes: [
                AttributeDescription("name", type: .string, isOptional: false, defaultValue: .string(""), isUnique: true),
                AttributeDescription("label", type: .string, isOptional: false, defaultValue: .string("")),
                AttributeDescription("a", type: .int64, isOptional: false, defaultValue: .integer(0)),
                AttributeDescription("b", type: .int64, isOptional: false, defaultValue: .integer(0)),
                AttributeDescription("c", type: .int64, isOptional: false, defaultValue: .integer(0)),
                AttributeDescription("d", type: .int64, isOptional: false, defaultValue: .integer(0)),
            ]),
        ])
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(store, options: options))
        let ensemble = try await Ensemble(identifier: "Probe", coordinator: coordinator,
                                          cloudFileSystem: LocalCloudFileSystem(rootDirectory: cloud), globalIdentifiers: .attribute("token"))
        return Peer(coordinator: coordinator, ensemble: ensemble)
    }
}

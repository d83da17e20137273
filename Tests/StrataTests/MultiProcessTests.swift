import Foundation
import GRDB
import Testing

/// One store, several processes: real child processes (`StrataProcessProbe`, built by
/// `swift build`) write and read the same SQLite file through Strata. A missing probe binary
/// fails these tests, saying so; it never skips them. `STRATA_LONG=1` runs 2 × 10 000 saves
/// instead of 2 × 1 500.
@Suite(.serialized) struct MultiProcessTests {
    static let savesPerWriter = ProcessInfo.processInfo.environment["STRATA_LONG"] == nil ? 1500 : 10_000

    /// The rows the probe wrote, read with plain SQLite.
    struct Contents {
        var entries: [(token: String, writer: String, sequence: Int64)]
        var tally: Row?
        var integrity: [String]
    }

    static func contents(of url: URL) throws -> Contents {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            let entries = try Row.fetchAll(db, sql: "SELECT token, writer, sequence FROM Entry").map { (token: $0["token"] as String, writer: $0["writer"] as String, sequence: $0["sequence"] as Int64) }
            return Contents(entries: entries,
                            tally: try Row.fetchOne(db, sql: "SELECT label, a, b FROM Tally WHERE name = 'shared'"),
                            integrity: try String.fetchAll(db, sql: "PRAGMA integrity_check"))
        }
    }

    @Test func twoWritersAndAReaderLoseNothing() async throws {
        let directory = TemporaryDirectory()
        let store = directory.file().path
        let count = Self.savesPerWriter
        // The file does not exist yet: the three processes race to create it, too.
        let writers = try ["a", "b"].map { try ProbeProcess(["writer", store, $0, "\(count)"]) }
        let reader = try ProbeProcess(["reader", store, "4"])
        for writer in writers {
            let status = try await writer.finish()
            #expect(status == .exited(0), "writer \(writer.child.arguments.dropFirst()) \(status): \(writer.errors)")
        }
        let readerStatus = try await reader.finish()
        #expect(readerStatus == .exited(0), "reader \(readerStatus): \(reader.errors)")
        #expect(reader.lines.contains { $0.hasPrefix("rounds ") && $0 != "rounds 0" }, "\(reader.lines)")

        let acknowledged = writers.flatMap(\.lines).filter { $0.hasPrefix("ack ") }.map { $0.split(separator: " ").map(String.init) }
        #expect(acknowledged.count == 2 * count)
        let stored = try Self.contents(of: directory.file())
        #expect(stored.integrity == ["ok"])
        // Every acknowledged save is there exactly once, and nothing else is.
        var occurrences: [String: Int] = [:]
        for entry in stored.entries { occurrences[entry.token, default: 0] += 1 }
        for ack in acknowledged { #expect(occurrences[ack[3]] == 1, "\(ack) is stored \(occurrences[ack[3]] ?? 0) times") }
        #expect(stored.entries.count == acknowledged.count)
        for writer in ["a", "b"] {
            #expect(stored.entries.filter { $0.writer == writer }.map(\.sequence).sorted() == (1...Int64(count)).map { $0 })
        }
        // The shared row: each writer's key (merged by property across processes) adds up.
        #expect(stored.tally?["a"] == Int64(count))
        #expect(stored.tally?["b"] == Int64(count))
    }

    /// Two processes read the shared row, then both save it: B first, then A.
    func editConcurrently(policy: String) async throws -> (a: [String], b: [String], stored: Contents) {
        let directory = TemporaryDirectory()
        let store = directory.file().path
        let a = try ProbeProcess(["edit", store, policy, "a", "A"])
        _ = try await a.waitForLine { $0 == "ready" }  // A created the row and read it
        let b = try ProbeProcess(["edit", store, policy, "b", "B"])
        _ = try await b.waitForLine { $0 == "ready" }
        b.send("go")
        #expect(try await b.finish() == .exited(0), "\(b.errors)")
        a.send("go")
        #expect(try await a.finish() == .exited(0), "\(a.errors)")
        return (a.lines, b.lines, try Self.contents(of: directory.file()))
    }

    @Test func aConflictBetweenProcessesIsReportedUnderError() async throws {
        let result = try await editConcurrently(policy: "error")
        #expect(result.b == ["ready", "saved"])
        // A's save is refused: the label it read ("") was changed to "B" by the other process.
        #expect(result.a.contains("conflict label||A|B"), "\(result.a)")
        #expect(!result.a.contains("saved"))
        #expect(result.stored.tally?["label"] == "B")
        #expect(result.stored.tally?["a"] == Int64(0))
        #expect(result.stored.tally?["b"] == Int64(1))
    }

    @Test func aConflictBetweenProcessesMergesUnderObjectTrump() async throws {
        let result = try await editConcurrently(policy: "mergeByPropertyObjectTrump")
        #expect(result.b == ["ready", "saved"])
        #expect(result.a == ["ready", "saved"])
        // A's keys win (label), B's other key stays.
        #expect(result.stored.tally?["label"] == "A")
        #expect(result.stored.tally?["a"] == Int64(1))
        #expect(result.stored.tally?["b"] == Int64(1))
    }

    /// Holds the write lock of `store` from another connection (as another process would)
    /// while `body` runs, for `seconds` at least.
    func holdingWriteLock(_ store: String, seconds: Double, _ body: () async throws -> Void) async throws {
        var configuration = Configuration()
        configuration.allowsUnsafeTransactions = true  // the transaction spans two accesses on purpose
        let queue = try DatabaseQueue(path: store, configuration: configuration)
        defer { try? queue.close() }
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        let start = Date()
        try await body()
        try await Task.sleep(for: .seconds(max(0, seconds - Date().timeIntervalSince(start))))
        try await queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
    }

    @Test func aSaveWaitsForAnotherProcessesWriteLock() async throws {
        let directory = TemporaryDirectory()
        let store = directory.file().path
        let editor = try ProbeProcess(["edit", store, "error", "a", "A"])
        _ = try await editor.waitForLine { $0 == "ready" }
        try await holdingWriteLock(store, seconds: 1) { editor.send("go") }
        #expect(try await editor.finish() == .exited(0), "\(editor.errors)")
        #expect(editor.lines == ["ready", "saved"])
        #expect(try Self.contents(of: directory.file()).tally?["label"] == "A")
    }

    @Test func aLockHeldPastTheBusyTimeoutIsStoreBusyAndKeepsTheChanges() async throws {
        let directory = TemporaryDirectory()
        let store = directory.file().path
        let editor = try ProbeProcess(["edit", store, "error", "a", "A"], environment: ["STRATA_BUSY_TIMEOUT": "0.2"])
        _ = try await editor.waitForLine { $0 == "ready" }
        try await holdingWriteLock(store, seconds: 0) {
            editor.send("go")
            _ = try await editor.waitForLine { $0.hasPrefix("failed") }
        }
        #expect(try await editor.finish() == .exited(0), "\(editor.errors)")
        #expect(editor.lines == ["ready", "failed storeBusy hasChanges=true"])
        #expect(try Self.contents(of: directory.file()).tally?["label"] == "")
    }

    @Test func hasExternalChangesSeesAnotherProcessesSaveButNotItsOwn() async throws {
        let directory = TemporaryDirectory()
        let store = directory.file().path
        let watcher = try ProbeProcess(["watch", store, "60"])
        _ = try await watcher.waitForLine { $0 == "ready" }
        let writer = try ProbeProcess(["writer", store, "a", "1"])
        #expect(try await writer.finish() == .exited(0), "\(writer.errors)")
        #expect(try await watcher.finish() == .exited(0), "\(watcher.errors)")
        #expect(watcher.lines == ["own false", "ready", "external"])
    }
}

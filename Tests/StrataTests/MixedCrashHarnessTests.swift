import Foundation
import GRDB
import StrataRandom
import Testing
@testable import Strata

/// The crash harness with a mixed workload (issue 12, "Proof under faults"). A child process
/// (`StrataProcessProbe mixed`, see Sources/StrataProcessProbe/MixedRole.swift) saves step
/// after step: inserts with relationships, to-one and to-many edits from either side, value
/// updates, deletes under cascade and nullify rules, batch insert, update and delete requests;
/// every fourth round it opens the store with the next model version, so it migrates (an
/// attribute with a default added to `Item`). The harness kills it with SIGKILL at a random
/// moment (seeded), reopens the store and checks:
///
/// - `PRAGMA integrity_check` is ok and `PRAGMA foreign_key_check` finds nothing;
/// - the store is at the old model version or the new one, with exactly that version's
///   columns and every row migrated (never a mix);
/// - the history has one transaction per committed step, of the step's kind and author, and
///   the number of committed steps is the last acknowledged one, or the one after it when the
///   child said it was about to commit it (killed between commit and ack);
/// - the graph read back through Strata has the digest the child reported for that step (so
///   every committed step is there whole, and no uncommitted one is there in part);
/// - inverse relationships agree on both sides.
///
/// 24 kills by default (about 20 s on a 2-core machine); `STRATA_CRASH_KILLS=N` runs N
/// (`STRATA_LONG=1`: 300). `STRATA_SEED` replays a seed; the seed is printed and in every
/// failure message.
@Suite struct MixedCrashHarnessTests {
    static let kills: Int = {
        let environment = ProcessInfo.processInfo.environment
        if let text = environment["STRATA_CRASH_KILLS"], let count = Int(text), count > 0 { return count }
        return environment["STRATA_LONG"] == nil ? 24 : 300
    }()
    static let seed: UInt64 = ProcessInfo.processInfo.environment["STRATA_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64(UInt32.max))

    /// What the harness knows about one step from the child's lines.
    struct Step {
        var kind: String
        var digest: String
    }

    /// What a killed child's store holds, read after the kill.
    struct Reopened {
        var version: Int
        var steps: Int
        var digest: String
        var canonicalText: String
    }

    @Test func aMixedWriterKilledAtRandomLosesNothingAndLeavesNothingInPart() async throws {
        let seed = Self.seed
        print("MixedCrashHarnessTests: seed \(seed), \(Self.kills) kills (replay with STRATA_SEED=\(seed))")
        var random = SplitMix64(seed: seed)
        let directory = TemporaryDirectory()
        let store = directory.file()
        var steps: [Int: Step] = [0: Step(kind: "start", digest: CrashState().digest)]
        var committed = 0, version = 1, storedVersion = 1
        var openSeconds = 0.3  // launch to "opened", measured in the rounds that wait for an ack
        var migrationRounds = 0, migrationsCommitted = 0, committedUnacknowledged = 0
        for round in 0..<Self.kills {
            let context = "seed \(seed), round \(round)"
            let migrates = round % 4 == 3
            if migrates {
                version += 1
                migrationRounds += 1
            }
            let started = Date()
            let child = try ProbeProcess(["mixed", store.path, "\(version)", "\(seed)", "\(committed + 1)"])
            if migrates {
                // Anywhere from launch to a little after the open (so during the migration, often).
                try await Task.sleep(for: .seconds(Double.random(in: 0...(openSeconds * 1.3), using: &random)))
            } else {
                _ = try await child.waitForLine { $0 == "opened" }
                // At most 2 s: on a loaded machine this task can be resumed long after the line came.
                openSeconds = min(2, max(openSeconds * 0.5, Date().timeIntervalSince(started)))
                _ = try await child.waitForLine { $0.hasPrefix("ack ") }
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...150, using: &random)))
            }
            child.kill()
            let ended = try await child.finish(timeout: 30)
            try #require(ended == .signalled(SIGKILL), "\(context): the child \(ended) by itself: \(child.errors)")

            var lastAck = committed, pending: Int?
            for line in child.lines {
                let parts = line.split(separator: " ").map(String.init)
                if parts.count == 4, parts[0] == "pending", let n = Int(parts[1]) {
                    steps[n] = Step(kind: parts[2], digest: parts[3])
                    pending = n
                } else if parts.count == 2, parts[0] == "ack", let n = Int(parts[1]) {
                    lastAck = n
                }
            }
            let reopened = try await Self.reopen(store, versions: storedVersion...version, steps: steps, context: context)
            try #require(reopened.version == storedVersion || reopened.version == version,
                         "\(context): the store is at version \(reopened.version), neither \(storedVersion) nor \(version)")
            if migrates && reopened.version == version && storedVersion != version { migrationsCommitted += 1 }
            if !migrates { try #require(reopened.version == version, "\(context): the child acknowledged saves, so it had migrated") }
            storedVersion = reopened.version

            let allowed = [lastAck] + (pending == lastAck + 1 ? [lastAck + 1] : [])
            try #require(allowed.contains(reopened.steps),
                         "\(context): \(reopened.steps) steps committed; the child acknowledged \(lastAck) (pending: \(pending.map(String.init) ?? "none"))")
            if reopened.steps == lastAck + 1 { committedUnacknowledged += 1 }
            let expected = try #require(steps[reopened.steps])
            try #require(reopened.digest == expected.digest,
                         "\(context): the graph after step \(reopened.steps) is not what the child saved (a save is there in part, or one is missing):\n\(reopened.canonicalText)")
            committed = reopened.steps
        }
        print("MixedCrashHarnessTests: seed \(seed): \(Self.kills) kills, \(committed) steps committed, \(committedUnacknowledged) committed but killed before the ack, \(migrationRounds) migration rounds (\(migrationsCommitted) committed before the kill, the others killed before or during the migration), store at version \(storedVersion)")
        #expect(committed > Self.kills / 2, "seed \(seed): too few steps ran to prove anything")
    }

    /// Reopens the store after a kill and checks what holds whatever step it stopped at.
    static func reopen(_ url: URL, versions: ClosedRange<Int>, steps: [Int: Step], context: String) async throws -> Reopened {
        // Plain SQLite first: the file itself, its version, its columns.
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        let (integrity, foreignKeys, hash, columns) = try await queue.read { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"),
             try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count,
             try String.fetchOne(db, sql: "SELECT value FROM _strata_metadata WHERE key = 'modelHash'"),
             Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Item')")))
        }
        try #require(integrity == ["ok"], "\(context): integrity_check \(integrity)")
        try #require(foreignKeys == 0, "\(context): \(foreignKeys) rows name a row that does not exist")
        let version = try #require(try versions.first { try CrashModel.make(version: $0).versionHash == hash },
                                   "\(context): model hash \(hash ?? "nil") is none of versions \(versions)")
        let extras = version >= 2 ? (2...version).map { "extra\($0)" } : []
        try #require(columns == Set(["_id", "_version", "name", "value", "owner"] + extras), "\(context): Item's columns \(columns.sorted()) at version \(version)")
        for k in extras.indices.map({ $0 + 2 }) {
            let unmigrated = try await queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Item WHERE extra\(k) IS NOT \(k)") ?? 0 }
            try #require(unmigrated == 0, "\(context): \(unmigrated) items without extra\(k) = \(k)")
        }
        try queue.close()

        // Then through Strata, as the app would: no migration, so a wrong version is an error.
        var options = StoreOptions()
        options.migratesAutomatically = false
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: version), store: .sqlite(url, options: options))
        defer { try? coordinator.close() }
        let history = try coordinator.history(after: nil)
        for (index, transaction) in history.enumerated() {
            let n = index + 1
            let step = try #require(steps[n], "\(context): history transaction \(n) has no step")
            try #require(transaction.kind.rawValue == step.kind, "\(context): history transaction \(n) is a \(transaction.kind), step \(n) a \(step.kind)")
            if step.kind == "save" { try #require(transaction.author == "step-\(n)", "\(context): transaction \(n) by \(transaction.author ?? "nil")") }
            try #require(!transaction.changes.isEmpty, "\(context): history transaction \(n) has no changes")
        }
        let objects = ObjectContext(.privateQueue, coordinator: coordinator)
        let (state, inverseErrors) = try await objects.perform { () throws -> (CrashState, [String]) in
            (try CrashState.read(objects), try inverseViolations(objects))
        }
        try #require(inverseErrors.isEmpty, "\(context): \(inverseErrors.prefix(5))")
        return Reopened(version: version, steps: history.count, digest: state.digest, canonicalText: state.canonicalText)
    }

    /// Relationships whose two sides disagree, read through a fresh context.
    static func inverseViolations(_ context: ObjectContext) throws -> [String] {
        var errors: [String] = []
        func name(_ object: ManagedObject) -> String { (object.value(forKey: "name") ?? object.value(forKey: "label")) as? String ?? "?" }
        for item in try context.fetch(FetchRequest<ManagedObject>(entityName: "Item")) {
            if let owner = item.value(forKey: "owner") as? ManagedObject, !(owner.value(forKey: "items") as? Set<ManagedObject> ?? []).contains(item) {
                errors.append("item \(name(item)) names owner \(name(owner)), whose items do not hold it")
            }
            for tag in item.value(forKey: "tags") as? Set<ManagedObject> ?? [] where !(tag.value(forKey: "items") as? Set<ManagedObject> ?? []).contains(item) {
                errors.append("item \(name(item)) has tag \(name(tag)), whose items do not hold it")
            }
        }
        for owner in try context.fetch(FetchRequest<ManagedObject>(entityName: "Owner")) {
            for item in owner.value(forKey: "items") as? Set<ManagedObject> ?? [] where (item.value(forKey: "owner") as? ManagedObject) !== owner {
                errors.append("owner \(name(owner)) holds item \(name(item)), which names another owner")
            }
        }
        for tag in try context.fetch(FetchRequest<ManagedObject>(entityName: "Tag")) {
            for item in tag.value(forKey: "items") as? Set<ManagedObject> ?? [] where !(item.value(forKey: "tags") as? Set<ManagedObject> ?? []).contains(tag) {
                errors.append("tag \(name(tag)) holds item \(name(item)), whose tags do not")
            }
        }
        return errors
    }
}

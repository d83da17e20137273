import Dispatch
import Foundation
import GRDB
import Testing
@testable import Strata

/// Eight contexts edit the same notes, folders and tags at once, each from its own thread
/// with its own seeded script, saving as they go. Afterwards the store must be intact (no
/// dangling key, `foreign_key_check` clean) and hold, for every object and key and every
/// join-table pair, what the last successful save wrote (see ``SaveLedger``), and each
/// context's object graph must pass `checkInvariants()`, inverses included, after every step
/// and merge.
///
/// The seed fixes each context's script; the interleaving of the threads is the machine's,
/// so a failing seed reproduces the operations, not necessarily the exact schedule.
/// `STRATA_SEED` runs one seed; `STRATA_STRESS_STEPS` sets steps per context (default 250).
@Suite struct StressTests {
    @Test(arguments: SeededRandom.seeds([1, 2, 3]))
    func eightContextsEditSharedObjects(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let (storeA, seeder) = try await makeStore(directory)
        let ledger = SaveLedger()
        // The seed save is in the ledger too: every join-table pair in the final store must
        // come from a recorded save.
        let seedPending = Locked<ChangeBatch?>(nil), seedChanges = Locked<ChangeSet?>(nil)
        let seedTokens = [seeder.observeWillSave { changes in seedPending.withLock { $0 = changes } },
                          seeder.observeChanges { changes in seedChanges.withLock { $0 = changes } }]
        try await seeder.perform {
            let folders = (0..<4).map { i in let f = seeder.insert(Folder.self); f.name = "folder \(i)"; return f }
            let tags = (0..<4).map { i in let t = seeder.insert(Tag.self); t.label = "tag \(i)"; return t }
            for i in 0..<12 {
                let note = seeder.insert(Note.self)
                note.title = "note \(i)"
                note.folder = folders[i % 4]
                note.tags = [tags[i % 4], tags[(i + 1) % 4]]
            }
            try seeder.save()
        }
        seedTokens.forEach { $0.cancel() }
        guard let seedSave = seedChanges.withLock({ $0 }) else { Issue.record("seed \(seed): the seed save published nothing"); return }
        ledger.recordSave(seedSave, pending: seedPending.withLock { $0 })
        let storeB = try await StoreCoordinator(model: testModel, store: .sqlite(directory.file()))

        let r0 = StressWorker(ObjectContext(.privateQueue, coordinator: storeA, name: "r0"))
        let r1 = StressWorker(ObjectContext(.privateQueue, coordinator: storeA, name: "r1"))
        let r2 = StressWorker(ObjectContext(.privateQueue, coordinator: storeA, name: "r2"))
        let main = StressWorker(ObjectContext(.mainQueue, coordinator: storeA, name: "main"))
        let c0 = StressWorker(ObjectContext(.privateQueue, parent: r0.context, name: "c0"), parent: r0)
        let c1 = StressWorker(ObjectContext(.privateQueue, parent: r0.context, name: "c1"), parent: r0)
        let c2 = StressWorker(ObjectContext(.privateQueue, parent: r1.context, name: "c2"), parent: r1)
        let x0 = StressWorker(ObjectContext(.privateQueue, coordinator: storeB, name: "x0 (second coordinator)"))
        let workers = [r0, r1, r2, main, c0, c1, c2, x0]
        // The row cache (docs/architecture.md, "Row cache"): the other roots fault from it with
        // Core Data's default (-1); r2 never uses it (0) or takes rows at most 2 s old, by seed.
        r2.context.stalenessInterval = seed % 2 == 0 ? 0 : 2
        let setup: [(StressWorker, MergePolicy, Bool)] = [
            (r0, .error, false), (r1, .error, true), (r2, .mergeByPropertyObjectTrump, true), (main, .mergeByPropertyStoreTrump, true),
            (c0, .error, true), (c1, .error, false), (c2, .error, true), (x0, .error, false),
        ]
        for (worker, policy, merges) in setup {
            worker.context.performAndWait {
                worker.context.mergePolicy = policy
                worker.context.automaticallyMergesChangesFromParent = merges
            }
        }

        let watchdog = Watchdog()
        // Across coordinators nothing merges by itself: each side merges the other's saves.
        @Sendable func mergeAsync(_ changes: ChangeSet, into worker: StressWorker) {
            let context = worker.context
            context.queue.async {
                context.merge(changes)
                ledger.checkGraph(of: context, "seed \(seed), \(context.name) after a merge", watchdog: watchdog)
            }
        }
        let intoB = storeA.observeSaves { changes in mergeAsync(changes, into: x0) }
        let intoA = storeB.observeSaves { changes in mergeAsync(changes, into: r0) }
        defer { intoA.cancel(); intoB.cancel() }

        let steps = iterationCount("STRATA_STRESS_STEPS", default: 250)
        let started = ContinuousClock.now
        await Watchdog.runBlocking {
            let group = DispatchGroup()
            for (index, worker) in workers.enumerated() {
                DispatchQueue.global().async(group: group) {
                    run(worker, seed: seed, script: seed &+ UInt64(index) &* 0x9E37_79B9, steps: steps, ledger: ledger, watchdog: watchdog)
                }
            }
            if group.wait(timeout: .now() + 120) == .timedOut { watchdog.fail("seed \(seed): the workers did not finish within 120 s (deadlock?)") }
        }
        // Queued merges run before these (a context's queue is serial).
        for worker in workers {
            let context = worker.context
            context.performAndWait { ledger.checkGraph(of: context, "seed \(seed), \(context.name) at the end", watchdog: watchdog) }
        }
        let elapsed = ContinuousClock.now - started
        let totals = ledger.state.withLock { $0 }
        print("StressTests seed \(seed): \(workers.count) contexts × \(steps) steps in \(elapsed); \(totals.saves) store saves, \(totals.conflicts) conflicts, other save errors \(totals.otherErrors); \(totals.pairs.count) join-table pairs written")

        #expect(watchdog.failures.isEmpty, "seed \(seed):\n\(watchdog.failures.prefix(5).joined(separator: "\n"))")
        #expect(totals.duplicates.isEmpty, "seed \(seed): lost updates: \(totals.duplicates.prefix(5))")
        #expect(totals.saves > 0, "seed \(seed): no save succeeded")
        #expect(totals.lostBases.isEmpty, "seed \(seed): to-many changes saved without the membership they changed: \(totals.lostBases.prefix(5))")
        let mismatches = try verifyStore(directory.file(), against: totals, seed: seed)
        #expect(mismatches.isEmpty, "seed \(seed): \(mismatches.count) mismatches:\n\(mismatches.prefix(10).joined(separator: "\n"))")
    }

    /// A worker thread: `steps` seeded steps, each followed by the invariant check.
    private func run(_ worker: StressWorker, seed: UInt64, script: UInt64, steps: Int, ledger: SaveLedger, watchdog: Watchdog) {
        var random = SeededRandom(seed: script)
        var seenGeneration = worker.parent?.generation.load(ordering: .sequentiallyConsistent) ?? 0
        let context = worker.context
        for number in 0..<steps where !watchdog.hasFailed {
            if let parent = worker.parent, parent.generation.load(ordering: .sequentiallyConsistent) != seenGeneration {
                seenGeneration = parent.generation.load(ordering: .sequentiallyConsistent)
                context.performAndWait { context.reset() }
            }
            var operation = "?"
            do {
                try context.performAndWait {
                    operation = try worker.step(&random, number: number, ledger: ledger)
                    ledger.checkGraph(of: context, "seed \(seed), \(context.name) step \(number) (\(operation))", watchdog: watchdog)
                }
            } catch {
                watchdog.fail("seed \(seed), \(context.name) step \(number) (\(operation)): \(error)")
            }
        }
    }

    /// The final store: intact (integrity and foreign keys; no dangling key in any to-one
    /// column or join table), and holding what the ledger says the last writers wrote.
    /// Returns the differences between the store and the ledger.
    private func verifyStore(_ url: URL, against ledger: SaveLedger.State, seed: UInt64) throws -> [String] {
        let database = try DatabaseQueue(path: url.path)
        defer { try? database.close() }
        return try database.read { db in
            #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok", "seed \(seed)")
            let violations = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
            #expect(violations.isEmpty, "seed \(seed): PRAGMA foreign_key_check: \(violations.prefix(5))")
            var mismatches: [String] = []
            for entity in testModel.entities where ["Note", "Folder", "Tag"].contains(entity.name) {
                let columns = entity.attributes.map(\.name).filter(SaveLedger.trackedKeys.contains) + (entity.name == "Note" ? ["folder"] : [])
                let sql = "SELECT _id, _version, \(columns.map { "\"\($0)\"" }.joined(separator: ", ")) FROM \"\(entity.name)\""
                var stored: [ObjectID: Row] = [:]
                for row in try Row.fetchAll(db, sql: sql) { stored[ObjectID(entity: entity, key: row["_id"])] = row }
                for id in ledger.deleted where id.entity === entity && stored[id] != nil { mismatches.append("\(id) was deleted by a save but is in the store") }
                for id in ledger.inserted where id.entity === entity && !ledger.deleted.contains(id) && stored[id] == nil {
                    mismatches.append("\(id) was inserted by a save, never deleted, and is missing")
                }
                for (id, keys) in ledger.latest where id.entity === entity && !ledger.deleted.contains(id) {
                    guard let row = stored[id] else { continue }
                    let highest = ledger.versions[id]?.max() ?? 0
                    let version: Int64 = row["_version"]
                    if version != highest { mismatches.append("\(id) is at version \(version) in the store; the last save reported \(highest)") }
                    for (key, write) in keys {
                        let value = storedValue(row, key: key)
                        if value != write.value { mismatches.append("\(id).\(key) is \(value) in the store; the last writer (v\(write.version)) wrote \(write.value)") }
                    }
                }
            }
            mismatches += try danglingKeys(db)
            mismatches += try joinTableMismatches(db, against: ledger)
            return mismatches
        }
    }

    /// Keys naming no row, in every to-one column and every join table of the model
    /// (docs/concurrency.md promises none).
    private func danglingKeys(_ db: Database) throws -> [String] {
        var found: [String] = []
        for entity in testModel.entities {
            for relationship in entity.relationships {
                let destination = testModel.entities[relationship.destinationIndex]
                switch relationship.storage {
                case .foreignKey(let column):
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(entity.name)\" WHERE \"\(column)\" IS NOT NULL AND \"\(column)\" NOT IN (SELECT _id FROM \"\(destination.name)\")") ?? 0
                    if count > 0 { found.append("\(count) \(entity.name) rows name a missing \(destination.name) in \(column)") }
                case .joinTable(let join) where join.isOwner:
                    let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(join.name)\" WHERE source NOT IN (SELECT _id FROM \"\(entity.name)\") OR target NOT IN (SELECT _id FROM \"\(destination.name)\")") ?? 0
                    if count > 0 { found.append("\(count) pairs of \(join.name) name a missing row") }
                default:
                    continue
                }
            }
        }
        return found
    }

    /// Every join-table pair in the store, against the last writer of each pair: a pair the
    /// last writer added (and whose rows were never deleted) is there; a pair the last writer
    /// removed, or one side of which a save deleted, is not; no pair is there that no save wrote.
    private func joinTableMismatches(_ db: Database, against ledger: SaveLedger.State) throws -> [String] {
        var mismatches: [String] = []
        for entity in testModel.entities {
            for relationship in entity.relationships {
                guard case .joinTable(let join) = relationship.storage, join.isOwner else { continue }
                let destination = testModel.entities[relationship.destinationIndex]
                var stored = Set<SaveLedger.JoinPair>()
                for row in try Row.fetchAll(db, sql: "SELECT source, target FROM \"\(join.name)\"") {
                    stored.insert(.init(owner: ObjectID(entity: entity, key: row["source"]), relationship: relationship.name, member: ObjectID(entity: destination, key: row["target"])))
                }
                for (pair, write) in ledger.pairs where pair.owner.entity === entity && pair.relationship == relationship.name {
                    let expected = write.value == .bool(true) && !ledger.deleted.contains(pair.owner) && !ledger.deleted.contains(pair.member)
                    if expected != stored.contains(pair) {
                        mismatches.append("\(pair) is \(stored.contains(pair) ? "in" : "not in") \(join.name); the last writer (v\(write.version)) \(write.value == .bool(true) ? "added" : "removed") it")
                    }
                }
                for pair in stored where ledger.pairs[pair] == nil { mismatches.append("\(pair) is in \(join.name) but no save wrote it") }
            }
        }
        return mismatches
    }

    private func storedValue(_ row: Row, key: String) -> PropertyValue {
        switch key {
        case "rating": return (row[key] as Int64?).map(PropertyValue.integer) ?? .null
        case "folder":
            guard let folder = testModel.entity(named: "Folder"), let key = row[key] as Int64? else { return .null }
            return .objectID(ObjectID(entity: folder, key: key))
        default: return (row[key] as String?).map(PropertyValue.string) ?? .null
        }
    }
}

import Foundation
import Strata
import StrataFetchedResults
import Testing

/// Seeded random sequences of inserts, updates (moving in and out of the predicate and across
/// sections), deletes, saves, processed pending changes and merges from another context. After
/// every batch the delegate's reports, applied to a model of the list, must give what a fresh
/// fetch gives.
@Suite("Random change sequences")
struct RandomSequenceTests {
    static let groups = ["A", "B", "C", "D", "E"]

    /// Runs one sequence; returns a failure description (with the seed) or nil.
    static func run(seed: UInt64, steps: Int, sectioned: Bool, coordinator: StoreCoordinator, trace: Bool = false) throws -> String? {
        var random = SplitMix64(seed: seed)
        func roll(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let main = ObjectContext(.privateQueue, coordinator: coordinator)
        let background = ObjectContext(.privateQueue, coordinator: coordinator)
        let collector = ChangeCollector()
        let token = background.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        let mainToken = main.observeChanges { changes in if trace { print("main published", changes, changes.inserted, changes.updated, changes.deleted, changes.permanentIDs) } }
        defer { token.cancel(); mainToken.cancel() }
        let request = FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true,
                                        sortKeys: sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank", ascending: false)])
        let recorder = Recorder()
        var model: ListModel?
        let controller = try main.performAndWait {
            main.mergePolicy = .mergeByPropertyObjectTrump
            let controller = try FetchedResultsController(fetchRequest: request, context: main, sectionKeyPath: sectioned ? "group" : nil)
            controller.delegate = recorder
            try controller.performFetch()
            model = ListModel(controller)
            return controller
        }
        guard var model else { return "no model" }
        func randomize(_ row: Row) {
            switch roll(4) {
            case 0: row.rank = Int64(roll(20))
            case 1: row.group = groups[roll(groups.count)]
            case 2: row.visible.toggle()
            default: row.title = "t\(roll(1000))"
            }
        }
        for step in 0..<steps {
            let start = recorder.events.count
            var mergedBatches = 0
            var settled = true   // whether the controller has been told about everything
            let action = roll(10)
            if action < 7 {
                try main.performAndWait {
                    let rows = try main.fetch(FetchRequest<Row>(sortKeys: [SortKey("rank")]))
                    for _ in 0..<(1 + roll(4)) {
                        let op = roll(5)
                        if trace { print("step \(step) op \(op)") }
                        switch op {
                        case 0, 1:
                            let row = main.insert(Row.self)
                            row.group = groups[roll(groups.count)]
                            row.rank = Int64(roll(20))
                            row.visible = roll(4) != 0
                        case 2 where !rows.isEmpty:
                            let row = rows[roll(rows.count)]
                            if !row.isDeleted { main.delete(row) }
                        default:
                            if !rows.isEmpty { let row = rows[roll(rows.count)]; if !row.isDeleted { randomize(row) } }
                        }
                    }
                    let mode = roll(3)
                    if trace { print("mode \(mode)") }
                    switch mode {
                    case 0: main.processPendingChanges()
                    case 1: try main.save()
                    default: settled = false   // left pending: reported by a later process or save
                    }
                }
            } else if main.performAndWait({ !main.hasChanges }) {
                try background.performAndWait {
                    background.reset()
                    let rows = try background.fetch(FetchRequest<Row>(sortKeys: [SortKey("rank")]))
                    for _ in 0..<(1 + roll(4)) {
                        if roll(3) == 0 || rows.isEmpty {
                            let row = background.insert(Row.self)
                            row.group = groups[roll(groups.count)]
                            row.rank = Int64(roll(20))
                        } else {
                            let row = rows[roll(rows.count)]
                            if row.isDeleted { continue }
                            if roll(4) == 0 { background.delete(row) } else { randomize(row) }
                        }
                    }
                    try background.save()
                }
                main.performAndWait {
                    for changes in collector.take() { main.merge(changes); mergedBatches += 1 }
                }
            } else {
                main.performAndWait { main.processPendingChanges() }
            }
            let failure: String? = try main.performAndWait {
                guard applyEvents(recorder, from: start, to: &model) else { return "seed \(seed) step \(step): reports do not apply" }
                let current = ListModel(controller)
                guard model == current else { return "seed \(seed) step \(step): reports give \(model), controller has \(current)" }
                guard settled else { return nil }
                let fresh = ListModel(fetched: try main.fetch(request), key: sectioned ? { $0.group } : nil)
                guard fresh == current else {
                    let freshSet = Set(try main.fetch(request).map(ObjectIdentifier.init))
                    let extra = controller.fetchedObjects.filter { !freshSet.contains(ObjectIdentifier($0)) }
                        .map { "\($0.objectID) deleted=\($0.isDeleted) ctx=\($0.context != nil) visible=\($0.visible) group=\($0.group)" }
                    return "seed \(seed) step \(step): controller has \(current), fresh fetch \(fresh); extra \(extra)"
                }
                guard controller.snapshot.itemIdentifiers == (try main.fetchObjectIDs(request)) else { return "seed \(seed) step \(step): IDs differ" }
                return nil
            }
            if let failure { return failure }
            _ = mergedBatches
        }
        return main.performAndWait {
            // Settle: process what is pending, then everything must equal a fresh fetch.
            main.processPendingChanges()
            if ProcessInfo.processInfo.environment["FRC_STATS"] != nil { print("seed \(seed): \(controller.statistics), rows \(controller.fetchedObjects.count)") }
            return nil
        }
    }

    @Test func fiveHundredStepsWithSections() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let failure = try Self.run(seed: 20_251_121, steps: 600, sectioned: true, coordinator: coordinator)
        #expect(failure == nil, "\(failure ?? "")")
    }

    @Test(arguments: 0..<4)
    func hundredsOfSeeds(batch: Int) async throws {
        for seed in UInt64(batch * 60)..<UInt64(batch * 60 + 60) {
            let coordinator = try await StoreCoordinator(model: rowModel, store: .inMemory)
            let failure = try Self.run(seed: seed, steps: 40, sectioned: seed % 4 != 3, coordinator: coordinator)
            #expect(failure == nil, "\(failure ?? "")")
            if failure != nil { break }
        }
    }
}

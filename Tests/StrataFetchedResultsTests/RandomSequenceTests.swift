import StrataRandom
import Foundation
import Strata
import StrataFetchedResults
import Testing

/// Seeded random sequences of inserts, updates (moving in and out of the predicate and across
/// sections), deletes, saves, processed pending changes and merges from another context. After
/// every step the delegate's reports, applied to a model of the list, must give the controller's
/// results, and those must equal a fresh fetch (sections, objects and IDs); every batch's update
/// reports are checked against values the test reads itself (``UpdateAudit``).
///
/// `STRATA_LONG=1` runs many more steps and seeds (a few minutes).
@Suite("Random change sequences")
struct RandomSequenceTests {
    static let groups = ["A", "B", "C", "D", "E"]
    static let long = ProcessInfo.processInfo.environment["STRATA_LONG"] == "1"

    /// Where the controller's context sits, and how the request reads.
    struct Variant: CustomStringConvertible, Sendable {
        enum Kind: String, Sendable { case privateRoot, mainQueue, child }
        var kind = Kind.privateRoot
        var sectioned = true
        /// Sections by `group` over a request sorted by `rank` only (the controller sorts by the
        /// section key first).
        var sectionKeyNotFirst = false
        var batchSize = 0
        var limit = 0
        var offset = 0
        var description: String {
            "\(kind)\(sectioned ? " sectioned" : "")\(sectionKeyNotFirst ? " by a key not sorted first" : "")\(batchSize > 0 ? " batch \(batchSize)" : "")\(limit > 0 ? " limit \(limit)" : "")\(offset > 0 ? " offset \(offset)" : "")"
        }
    }

    /// Runs one sequence; returns a failure description (with the seed and step) or nil.
    /// `trace` prints every step, published change set and row report (to debug a seed).
    static func run(seed: UInt64, steps: Int, variant: Variant, coordinator: StoreCoordinator, trace: Bool = false,
                    statistics: ((FetchedResultsStatistics) -> Void)? = nil) throws -> String? {
        var random = SplitMix64(seed: seed)
        func roll(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        let main: ObjectContext, background: ObjectContext
        switch variant.kind {
        case .privateRoot:
            main = ObjectContext(.privateQueue, coordinator: coordinator)
            background = ObjectContext(.privateQueue, coordinator: coordinator)
        case .mainQueue:
            main = ObjectContext(.mainQueue, coordinator: coordinator)
            background = ObjectContext(.privateQueue, coordinator: coordinator)
        case .child:
            let root = ObjectContext(.privateQueue, coordinator: coordinator)
            main = ObjectContext(.privateQueue, parent: root)
            background = ObjectContext(.privateQueue, parent: root)   // a sibling: its saves reach main by merge
        }
        let collector = ChangeCollector()
        let token = background.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        let mainToken = main.observeChanges { changes in
            if trace { print("main published ins \(changes.inserted) upd \(changes.updated) del \(changes.deleted) ids \(changes.permanentIDs)") }
        }
        defer { token.cancel(); mainToken.cancel() }
        var request = FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true,
                                        sortKeys: variant.sectioned ? [SortKey("group"), SortKey("rank")] : [SortKey("rank", ascending: false)])
        request.fetchBatchSize = variant.batchSize
        request.fetchLimit = variant.limit
        request.fetchOffset = variant.offset
        // The controller's own request: without the section key when it is not sorted first (the
        // controller puts it first; `request`, the fresh fetch it is compared with, has it first).
        var controllerRequest = request
        if variant.sectionKeyNotFirst { controllerRequest.sortKeys.removeFirst() }
        let recorder = Recorder()
        let audit = UpdateAudit()
        recorder.audit = audit
        recorder.trace = trace
        var model: ListModel?
        let controller = try main.performAndWait {
            main.mergePolicy = .mergeByPropertyObjectTrump
            let controller = try FetchedResultsController(fetchRequest: controllerRequest, context: main, sectionKeyPath: variant.sectioned ? "group" : nil)
            controller.delegate = recorder
            try controller.performFetch()
            model = ListModel(controller)
            audit.remember(controller.fetchedObjects)
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
        /// Random local edits; rows are picked by ID so the others stay as they are (faults
        /// of a batched fetch stay faults).
        func editLocally() throws {
            let rows = try main.fetchObjectIDs(FetchRequest<Row>(sortKeys: [SortKey("rank")])).map(main.object(with:))
            for _ in 0..<(1 + roll(4)) {
                let op = roll(5)
                if trace { print("edit op \(op)") }
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
                    if !rows.isEmpty, let row = rows[roll(rows.count)] as? Row, !row.isDeleted { randomize(row) }
                }
            }
        }
        /// The reports so far applied to the model must give the controller, and the controller
        /// must equal a fresh fetch.
        func compare(_ label: String) throws -> String? {
            guard applyEvents(recorder, from: 0, to: &model) else { return "\(label): reports do not apply" }
            recorder.events = []
            let current = ListModel(controller)
            guard model == current else { return "\(label): reports give \(model), controller has \(current)" }
            let fresh = ListModel(fetched: try main.fetch(request), key: variant.sectioned ? { $0.group } : nil)
            guard fresh == current else { return "\(label): controller has \(current), fresh fetch \(fresh)" }
            let ids = try main.fetchObjectIDs(request)
            guard controller.snapshot.itemIdentifiers == ids else { return "\(label): snapshot IDs differ from a fresh fetch's" }
            guard controller.fetchedObjects.map(\.objectID) == ids else { return "\(label): objects' IDs differ from a fresh fetch's" }
            if let failure = audit.failures.first { return failure }
            return nil
        }
        for step in 0..<steps {
            let label = "seed \(seed) \(variant) step \(step)"
            audit.label = label
            if trace { print(label) }
            let action = roll(10)
            if action < 7 {
                try main.performAndWait {
                    try editLocally()
                    switch roll(3) {
                    case 0: main.processPendingChanges()
                    case 1: try main.save()
                    default:
                        // Left pending while more edits pile up (maybe on the same rows), then told.
                        try editLocally()
                        if roll(2) == 0 { main.processPendingChanges() } else { try main.save() }
                    }
                }
            } else if try main.performAndWait({ main.hasChanges ? (try main.save(), false).1 : true }) {
                // Merges only into a main without unsaved changes (told is not saved: otherwise
                // the step saves them, an echo of what was processed). Into a context with
                // unsaved changes, the engine's pending-changes follow-up can publish before
                // the merge's own change set reaches the controller (observers run in no set
                // order), so a batch ends with merged values not yet told.
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
                    for changes in collector.take() { main.merge(changes) }
                }
            }
            if let failure = try main.performAndWait({ try compare(label) }) { return failure }
        }
        return try main.performAndWait {
            // Settle: whatever is pending is told, then everything must equal a fresh fetch.
            main.processPendingChanges()
            if ProcessInfo.processInfo.environment["FRC_STATS"] != nil { print("seed \(seed): \(controller.statistics), rows \(controller.fetchedObjects.count)") }
            statistics?(controller.statistics)
            return try compare("seed \(seed) \(variant) settled")
        }
    }

    @Test func hundredsOfStepsWithSections() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let failure = try Self.run(seed: 20_251_121, steps: Self.long ? 2_000 : 250, variant: Variant(), coordinator: coordinator)
        #expect(failure == nil, "\(failure ?? "")")
    }

    @Test(arguments: 0..<4)
    func hundredsOfSeeds(batch: Int) async throws {
        let count = Self.long ? 150 : 8
        for seed in UInt64(batch * count)..<UInt64(batch * count + count) {
            let coordinator = try await StoreCoordinator(model: rowModel, store: .inMemory)
            let failure = try Self.run(seed: seed, steps: 40, variant: Variant(sectioned: seed % 4 != 3), coordinator: coordinator)
            #expect(failure == nil, "\(failure ?? "")")
            if failure != nil { break }
        }
    }

    /// Unsectioned fetch-limit windows, which take batches in from memory where they can:
    /// every step must still equal a fresh fetch (deletes, predicate and sort-key changes,
    /// arrivals, merges and processed pending changes).
    @Test(arguments: [2, 5, 9, 15])
    func windowSeeds(limit: Int) async throws {
        let count: UInt64 = Self.long ? 100 : 6
        var inMemory = 0, refetched = 0
        for seed in 2_000..<(2_000 + count) {
            let coordinator = try await StoreCoordinator(model: rowModel, store: .inMemory)
            let kind: Variant.Kind = [.privateRoot, .mainQueue, .child][Int(seed % 3)]
            let failure = try Self.run(seed: seed, steps: 40, variant: Variant(kind: kind, sectioned: false, limit: limit), coordinator: coordinator) {
                inMemory += $0.windowBatchesInMemory
                refetched += $0.windowRefetches
            }
            #expect(failure == nil, "\(failure ?? "")")
            if failure != nil { break }
        }
        // Both paths were taken: these sequences check the in-memory one against fresh fetches.
        #expect(inMemory > 0)
        #expect(refetched > 0)
    }

    /// The same sequences on a main-queue context, on a child context, and with a batched,
    /// limited or offset request, sectioned and not.
    @Test(arguments: [
        Variant(kind: .mainQueue), Variant(kind: .mainQueue, sectioned: false),
        Variant(kind: .child), Variant(kind: .child, sectioned: false),
        Variant(sectioned: false, batchSize: 4), Variant(batchSize: 4), Variant(kind: .child, sectioned: false, batchSize: 4),
        Variant(sectioned: false, limit: 6), Variant(limit: 6), Variant(kind: .mainQueue, sectioned: false, batchSize: 3, limit: 8),
        Variant(kind: .child, limit: 5, offset: 2), Variant(sectioned: false, offset: 3),
        Variant(sectionKeyNotFirst: true), Variant(kind: .mainQueue, sectionKeyNotFirst: true, batchSize: 4),
    ])
    func contextKindsAndRequestOptions(variant: Variant) async throws {
        let count: UInt64 = Self.long ? 100 : 3
        for seed in 1_000..<(1_000 + count) {
            let coordinator = try await StoreCoordinator(model: rowModel, store: .inMemory)
            let failure = try Self.run(seed: seed, steps: 40, variant: variant, coordinator: coordinator)
            #expect(failure == nil, "\(failure ?? "")")
            if failure != nil { break }
        }
    }
}

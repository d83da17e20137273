import Foundation
import Strata
import StrataFetchedResults
import Testing

/// A `fetchLimit` controller takes change sets in from memory where it can decide its window
/// itself (deletes outside it, updates of keys the request does not read, changes of its own
/// rows that keep the window full), and fetches the window again — IDs first, registering
/// nothing when they are unchanged — when it cannot (a row leaving a full window, objects from
/// outside that could come in). After every step the results equal a fresh fetch and the
/// reports, applied in order, give the results.
@Suite("Fetch-limit windows from change sets")
struct WindowChangeTests {
    /// A window of the first `limit` visible rows by position, on a main context that a
    /// sibling's saves reach by merge (as an import reaches the main context).
    final class Fixture {
        let main: ObjectContext
        let importer: ObjectContext
        let controller: FetchedResultsController<Row>
        let recorder: Recorder
        let request: FetchRequest<Row>
        let collector: ChangeCollector
        var token: ChangeObservation?
        var model: ListModel

        init(coordinator: StoreCoordinator, rows: Int, limit: Int, batchSize: Int = 0) throws {
            let main = ObjectContext(.privateQueue, coordinator: coordinator)
            let importer = ObjectContext(.privateQueue, coordinator: coordinator)
            var request = FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true, sortKeys: [SortKey("position")])
            request.fetchLimit = limit
            request.fetchBatchSize = batchSize
            try importer.performAndWait {
                for position in 0..<rows {
                    let row = importer.insert(Row.self)
                    row.position = Int64(position * 10)
                    row.title = "r\(position)"
                }
                try importer.save()
            }
            let recorder = Recorder()
            let (controller, model) = try main.performAndWait {
                let controller = try FetchedResultsController(fetchRequest: request, context: main)
                controller.delegate = recorder
                try controller.performFetch()
                return (controller, ListModel(controller))
            }
            let collector = ChangeCollector()
            self.main = main
            self.importer = importer
            self.request = request
            self.recorder = recorder
            self.controller = controller
            self.model = model
            self.collector = collector
            token = importer.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        }

        /// What one step cost the controller (differences of its statistics).
        struct Cost {
            var evaluations = 0, sortValueReads = 0, windowBatchesInMemory = 0, windowRefetches = 0
        }

        /// Runs `body` in the importer, saves, merges into main; returns what the controller did.
        @discardableResult
        func importStep(_ body: (ObjectContext) throws -> Void) throws -> Cost {
            try importer.performAndWait {
                try body(importer)
                try importer.save()
                importer.reset()
            }
            return main.performAndWait {
                let before = controller.statistics
                for changes in collector.take() { main.merge(changes) }
                let after = controller.statistics
                return Cost(evaluations: after.evaluations - before.evaluations, sortValueReads: after.sortValueReads - before.sortValueReads,
                            windowBatchesInMemory: after.windowBatchesInMemory - before.windowBatchesInMemory,
                            windowRefetches: after.windowRefetches - before.windowRefetches)
            }
        }

        /// The controller equals a fresh fetch, and the reports so far give its results.
        func check(_ label: String) throws {
            try main.performAndWait {
                let ids = try main.fetchObjectIDs(request)
                #expect(controller.fetchedObjects.map(\.objectID) == ids, "\(label): controller differs from a fresh fetch")
                #expect(controller.snapshot.itemIdentifiers == ids, "\(label): snapshot differs from a fresh fetch")
                #expect(applyEvents(recorder, from: 0, to: &model), "\(label): reports do not apply")
                recorder.events = []
                #expect(model == ListModel(controller), "\(label): reports give \(model), controller has \(ListModel(controller))")
            }
        }

        func rows(at positions: [Int64], in context: ObjectContext) throws -> [Row] {
            try context.fetch(FetchRequest<Row>(predicate: ObjectPredicate.key("position").isIn(positions), sortKeys: [SortKey("position")]))
        }
    }

    @Test func changesOutsideTheWindowReadNothingAndRefetchNothing() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 200, limit: 20)

        // Rows arriving after the window's last row: their save's values place them all after
        // it, so the window is not fetched; nothing is reported and the main context registers
        // nothing new.
        let registered = fixture.main.performAndWait { fixture.main.registeredObjects.count }
        var stats = try fixture.importStep { context in
            for i in 0..<10 { let row = context.insert(Row.self); row.position = Int64(5_000 + i) }
        }
        #expect(stats.windowRefetches == 0)
        #expect(stats.sortValueReads == 0)
        #expect(fixture.recorder.batches.isEmpty)
        #expect(fixture.main.performAndWait { fixture.main.registeredObjects.count } == registered)
        try fixture.check("arrivals after the window")

        // Updates of a key the request does not read: outside rows are not even read; the
        // rows inside are reported as updates in place.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: (5..<150).map { Int64($0 * 10) }, in: context) { row.title = "renamed" }
        }
        #expect(stats.windowBatchesInMemory == 1)
        #expect(stats.windowRefetches == 0)
        #expect(stats.sortValueReads == 0)
        #expect(stats.evaluations == 0)
        #expect(fixture.main.performAndWait { fixture.main.registeredObjects.count } == registered)
        #expect(fixture.recorder.batches.last?.rows.count == 15)
        #expect(fixture.recorder.batches.last?.rows.allSatisfy { $0.type == .update } == true)
        try fixture.check("updates of an unread key")
    }

    @Test func movesBelowTheWindowReadNothingAndRefetchNothing() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 200, limit: 20)
        let registered = fixture.main.performAndWait { fixture.main.registeredObjects.count }

        // Rows far down the list moved to other places after the window's last row (190), one
        // just after it: their new positions, in the change set, place them; nothing is read,
        // fetched or reported.
        var stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [500, 1_000, 1_500], in: context) { row.position = row.position == 500 ? 195 : row.position + 7 }
        }
        #expect(stats.windowRefetches == 0)
        #expect(stats.windowBatchesInMemory == 0)
        #expect(fixture.recorder.batches.isEmpty)
        #expect(fixture.main.performAndWait { fixture.main.registeredObjects.count } == registered)
        try fixture.check("moved below the window")

        // A row moved onto the last row's position sorts by ID: an older row (smaller key)
        // comes in before it. The first row leaves: the move to 195 above, of a row main does
        // not hold, let every spare go (whether it matches is unknown), so the window is
        // fetched again; the last row is now the one moved to 195 (key 51). The row with key 1
        // moved to 195 sorts before it and must come back in: main holds it filled (it was a
        // result), so it comes in from memory.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [0], in: context) { row.position = 5_000 }
        }
        #expect(stats.windowRefetches == 1)
        try fixture.check("first row moved out")
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [5_000], in: context) { row.position = 195 }
        }
        #expect(stats.windowRefetches == 0)
        #expect(stats.windowBatchesInMemory == 1)
        try fixture.check("tie with the last row, older ID")

        // A row the main context holds filled, hidden by the predicate with its position kept:
        // its own position (not in the change set) says it stays below; nothing fetched.
        let heldPosition: Int64 = 1_200
        try fixture.main.performAndWait { _ = try fixture.rows(at: [heldPosition], in: fixture.main).first?.title }
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [heldPosition], in: context) { row.visible = false }
        }
        #expect(stats.windowRefetches == 0)
        try fixture.check("held row hidden below the window")

        // The same change of a row main does not hold: its position is unknown, so fetched.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [1_300], in: context) { row.visible = false }
        }
        #expect(stats.windowRefetches == 1)
        try fixture.check("unheld row hidden below the window")
    }

    /// A store's change set says which keys its updates name (`updatedKeys`), and a window
    /// passes over every update when none is a key it reads. An update added to the set
    /// afterwards (an observer combining sets by hand) must not be passed over with them.
    @Test func anUpdateAddedToAStoresChangeSetIsNotPassedOver() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 200, limit: 20)
        // Two saves: titles renamed (a key the window does not read), then a row far down the
        // list moved to the top.
        let (renames, move) = try fixture.importer.performAndWait {
            for row in try fixture.rows(at: (100..<150).map { Int64($0 * 10) }, in: fixture.importer) { row.title = "renamed" }
            try fixture.importer.save()
            for row in try fixture.rows(at: [1_900], in: fixture.importer) { row.position = -1 }
            try fixture.importer.save()
            fixture.importer.reset()
            let sets = fixture.collector.take()
            return (sets[0], sets[1])
        }
        #expect(renames.updatesNameNone(of: ["position", "visible"]))
        var combined = renames
        for (id, values) in move.updated { combined.updated[id] = values }
        for (id, version) in move.versions { combined.versions[id] = version }
        fixture.main.performAndWait { fixture.main.merge(combined) }
        try fixture.check("a move added to a set of renames")
        fixture.main.performAndWait { #expect(fixture.controller.fetchedObjects.first?.position == -1) }
    }

    /// A `fetchBatchSize` window holds rows past its first batch as never-read faults: its
    /// last row's sort values are not known until read, and read after a batch that changed
    /// it they are the new ones. They must not bound the window (found in review).
    @Test func aNeverReadLastRowThatTheBatchMovesDoesNotBoundTheWindow() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let fixture = try Fixture(coordinator: coordinator, rows: 40, limit: 10, batchSize: 2)
        // The last row (90) moves to the top and a row from outside (300) to just after it:
        // the outside row comes in.
        try fixture.importStep { context in
            for row in try fixture.rows(at: [90, 300], in: context) { row.position = row.position == 90 ? 5 : 15 }
        }
        try fixture.check("last row moved up, outside row moved in")

        let otherDirectory = TemporaryDirectory()
        let other = try Fixture(coordinator: try await makeCoordinator(otherDirectory), rows: 40, limit: 10, batchSize: 2)
        // The last row (90) moves far down on its own: the next row (100) takes its place.
        try other.importStep { context in
            for row in try other.rows(at: [90], in: context) { row.position = 500 }
        }
        try other.check("last row moved out")
    }

    @Test func arrivalsBeforeTheBoundaryPushTheLastRowsOut() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 50, limit: 10)
        let stats = try fixture.importStep { context in
            for position in [-5, 15, 85] { let row = context.insert(Row.self); row.position = Int64(position) }
            let hidden = context.insert(Row.self)   // sorts first but does not match
            hidden.position = -100
            hidden.visible = false
        }
        #expect(stats.windowRefetches == 1)
        let types = fixture.recorder.batches.last?.rows.map(\.type) ?? []
        // -5 and 15 come in and push 80 and 90 out; 85 arrives inside the old window but is
        // pushed out by the other two arrivals.
        #expect(types.filter { $0 == .insert }.count == 2)
        #expect(types.filter { $0 == .delete }.count == 2)
        try fixture.check("arrivals inside the window")
    }

    @Test func anImportAppendingToTheListIsPassedOverWithoutAFetch() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 50, limit: 10)
        let registered = fixture.main.performAndWait { fixture.main.registeredObjects.count }

        // More new rows than the window holds, all after its last row: nothing is fetched,
        // read, registered or reported.
        var stats = try fixture.importStep { context in
            for i in 0..<100 { let row = context.insert(Row.self); row.position = Int64(10_000 + i) }
        }
        #expect(stats.windowRefetches == 0)
        #expect(stats.sortValueReads == 0)
        #expect(fixture.recorder.batches.isEmpty)
        #expect(fixture.main.performAndWait { fixture.main.registeredObjects.count } == registered)
        try fixture.check("an import after the window")

        // New rows after the window but before some of its spares (the spares from there on are
        // let go), then deletes of the window's rows: the window still equals a fresh fetch.
        stats = try fixture.importStep { context in
            for i in 0..<20 { let row = context.insert(Row.self); row.position = Int64(101 + i * 2) }
        }
        #expect(stats.windowRefetches == 0)
        try fixture.check("an import among the spares")
        _ = try fixture.importStep { context in
            for row in try fixture.rows(at: [0, 10, 20, 30], in: context) { context.delete(row) }
        }
        try fixture.check("deletes after an import among the spares")

        // One new row sorting inside among many after: the window is fetched again (an arrival
        // from outside is), the row comes in and the last one leaves.
        stats = try fixture.importStep { context in
            for i in 0..<100 { let row = context.insert(Row.self); row.position = Int64(20_000 + i) }
            context.insert(Row.self).position = 45
        }
        #expect(stats.windowRefetches == 1)
        let types = fixture.recorder.batches.last?.rows.map(\.type) ?? []
        #expect(types.filter { $0 == .insert }.count == 1)
        #expect(types.filter { $0 == .delete }.count == 1)
        try fixture.check("an import with one row inside the window")
    }

    @Test func anInsertReportedWhileAnImportMergesIsNotTakenForTheImports() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 50, limit: 10)
        // An observer of main that, told of the import's merge, inserts a row sorting first and
        // reports it at once (inside the merge): that report is not the import's, whose new rows
        // all sort after the window.
        let main = fixture.main
        let inserted = Locked(false)
        let token = main.observeChanges { changes in
            guard !changes.isUnsaved, !inserted.withLock({ $0 }) else { return }
            inserted.withLock { $0 = true }
            main.insert(Row.self).position = -1
            main.processPendingChanges()
        }
        _ = try fixture.importStep { context in
            for i in 0..<100 { let row = context.insert(Row.self); row.position = Int64(10_000 + i) }
        }
        token.cancel()
        #expect(inserted.withLock { $0 })
        let first = fixture.main.performAndWait { fixture.controller.fetchedObjects.first?.position }
        #expect(first == -1)
        try fixture.check("a row inserted while the import merged")
    }

    @Test func predicateAndSortKeyChangesMoveRowsInAndOut() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 40, limit: 10)

        // An outside row moved before the boundary comes in, the last one leaves: fetched.
        var stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [300], in: context) { row.position = 1 }
        }
        #expect(stats.windowRefetches == 1)
        try fixture.check("moved in by its sort key")

        // A row inside moved within the window: in memory, a move.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [50], in: context) { row.position = 5 }
        }
        #expect(stats.windowBatchesInMemory == 1)
        #expect(fixture.recorder.batches.last?.rows.map(\.type) == [.move])
        try fixture.check("moved inside")

        // A row inside hidden by the predicate leaves a gap: the first spare fills it.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [20], in: context) { row.visible = false }
        }
        #expect(stats.windowBatchesInMemory == 1)
        #expect(stats.windowRefetches == 0)
        try fixture.check("hidden by the predicate")

        // That row, shown again before the boundary, comes back in from memory: main still
        // holds it filled (it was a result).
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [20], in: context) { row.visible = true }
        }
        #expect(stats.windowBatchesInMemory == 1)
        #expect(stats.windowRefetches == 0)

        // Rows inside changing places among themselves, the window staying full: in memory.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [5, 10], in: context) { row.position = row.position == 5 ? 11 : 4 }
        }
        #expect(stats.windowBatchesInMemory == 1)
        #expect(stats.windowRefetches == 0)
        try fixture.check("swapped inside")
        try fixture.check("shown by the predicate")

        // A row inside moved past the boundary leaves a gap: a spare fills it.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [0], in: context) { row.position = 10_000 }
        }
        #expect(stats.windowRefetches == 0)
        try fixture.check("moved out by its sort key")

        // More rows moved out at once than the spares hold (4 for a window of 10): fetched again.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [10, 30, 40, 60, 70, 80], in: context) { row.position += 20_000 }
        }
        #expect(stats.windowRefetches == 1)
        try fixture.check("more moved out than there are spares")
    }

    @Test func deletesInsideRefetchAndDeletesOutsideDoNot() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 30, limit: 10)
        var stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [250, 260], in: context) { context.delete(row) }
        }
        #expect(stats.windowRefetches == 0)
        #expect(stats.evaluations == 0)
        #expect(fixture.recorder.batches.isEmpty)
        try fixture.check("deleted outside")

        // A row deleted inside: the first spare (of 4 for a window of 10) takes its place.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [30], in: context) { context.delete(row) }
        }
        #expect(stats.windowBatchesInMemory == 1)
        #expect(stats.windowRefetches == 0)
        try fixture.check("deleted inside")

        // More deleted inside than the spares left (3): fetched again.
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [0, 10, 20, 40], in: context) { context.delete(row) }
        }
        #expect(stats.windowRefetches == 1)
        try fixture.check("deleted inside, more than the spares")

        // A deleted spare: no row of the window changes, and the next delete inside is still
        // filled from memory by the spares after it.
        let batches = fixture.recorder.batches.count
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [150], in: context) { context.delete(row) }
        }
        #expect(fixture.recorder.batches.count == batches)
        #expect(stats.windowRefetches == 0)
        try fixture.check("a spare deleted")
        stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [50], in: context) { context.delete(row) }
        }
        #expect(stats.windowRefetches == 0)
        try fixture.check("deleted inside after a spare was")
    }

    /// The `reorder` scenario's shape: a list of every row on the window's context (so the
    /// context holds each row filled) is reordered by hand while a 20-row window shows the
    /// first rows. Rows moved out are replaced by spares, rows moved in come from memory:
    /// nothing is fetched or read, and the window equals a fresh fetch after every move.
    @Test func movesInAndOutOfAWindowWhoseContextHoldsEveryRowFetchNothing() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 300, limit: 20)
        let main = fixture.main
        let list = try main.performAndWait {
            let list = try FetchedResultsController(fetchRequest: FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true,
                                                                                      sortKeys: [SortKey("position")]), context: main)
            try list.performFetch()
            return list
        }
        let registered = main.performAndWait { main.registeredObjects.count }
        let before = main.performAndWait { fixture.controller.statistics }
        // Out of the window, into it, within it, and out again by several rows at once, each
        // saved; every other pair also a move among the spares' rows.
        let moves: [(from: Int, to: Int)] = [(3, 250), (200, 0), (19, 21), (22, 5), (0, 299), (280, 10), (10, 150), (150, 10),
                                            (5, 100), (6, 101), (7, 102), (120, 2), (121, 3), (122, 4)]
        for (step, move) in moves.enumerated() {
            try main.performAndWait {
                try list.moveObject(from: FetchedIndexPath(section: 0, row: move.from), to: FetchedIndexPath(section: 0, row: move.to), positionKey: "position")
                try main.save()
            }
            try fixture.check("move \(step): \(move.from) → \(move.to)")
        }
        let after = main.performAndWait { fixture.controller.statistics }
        #expect(after.windowRefetches == before.windowRefetches)
        #expect(after.windowBatchesInMemory > before.windowBatchesInMemory)
        #expect(main.performAndWait { main.registeredObjects.count } == registered)
    }

    @Test func aWindowNotFullTakesItsOwnDeletesInFromMemory() async throws {
        let directory = TemporaryDirectory()
        let fixture = try Fixture(coordinator: try await makeCoordinator(directory), rows: 5, limit: 10)
        var stats = try fixture.importStep { context in
            for row in try fixture.rows(at: [20], in: context) { context.delete(row) }
        }
        #expect(stats.windowBatchesInMemory == 1)
        #expect(stats.windowRefetches == 0)
        try fixture.check("not full, deleted")

        stats = try fixture.importStep { context in
            for position in [7, 1_000] { let row = context.insert(Row.self); row.position = Int64(position) }
        }
        #expect(stats.windowRefetches == 1)
        try fixture.check("not full, arrivals")

        // More arrivals than the window holds: fetching the window beats reading them all.
        stats = try fixture.importStep { context in
            for i in 0..<30 { let row = context.insert(Row.self); row.position = Int64(2_000 + i) }
        }
        #expect(stats.windowRefetches == 1)
        try fixture.check("many arrivals")
    }

    @Test func readKeysNameWhatThePredicateAndSortKeysRead() async throws {
        let coordinator = try await StoreCoordinator(model: rowModel, store: .inMemory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let request = FetchRequest<Row>(predicate: ObjectPredicate.key("list.name") == "a" && ObjectPredicate.key("visible") == true,
                                            sortKeys: [SortKey("rank"), SortKey("title")])
            let keys = try request.evaluator(in: context).readKeys
            #expect(keys == ["list", "visible", "rank", "title"])
            let plain = try FetchRequest<Row>(sortKeys: [SortKey("position")]).evaluator(in: context).readKeys
            #expect(plain == ["position"])
            let subquery = FetchRequest<RowList>(predicate: try ObjectPredicate("SUBQUERY(rows, $r, $r.rank > 3).@count > 0"))
            #expect(try subquery.evaluator(in: context).readKeys == ["rows"])
            let sum = FetchRequest<RowList>(predicate: try ObjectPredicate("rows.@sum.rank > 2"))
            #expect(try sum.evaluator(in: context).readKeys == ["rows"])
        }
    }
}

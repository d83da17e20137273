import Strata
import Testing
@testable import StrataFetchedResults

/// A controller following another context's saves places the new objects of a merged store
/// save by the values the save wrote (`MergedInsertReader`): they stay faults until something
/// reads them, and the list is the one a fresh fetch gives.
@Suite struct MergedInsertPlacementTests {
    /// A controller of `request` on `context`, fetched, reporting to `delegate`.
    private static func list(_ request: FetchRequest<Row>, on context: ObjectContext,
                             reportingTo delegate: any FetchedResultsControllerDelegate<Row>) throws -> FetchedResultsController<Row> {
        try context.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            controller.delegate = delegate
            try controller.performFetch()
            return controller
        }
    }

    /// Visible rows by rank, then the controller on `context` listing them.
    private static func visibleByRank(_ fixture: TwoContexts, recorder: Recorder) throws -> FetchedResultsController<Row> {
        try list(FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true, sortKeys: [SortKey("rank")]),
                 on: fixture.context, reportingTo: recorder)
    }

    /// The IDs a fetch of the controller's request gives in a new context of the fixture's
    /// coordinator (one that fills no object of the controller's).
    private static func freshIDs(_ controller: FetchedResultsController<Row>, of fixture: TwoContexts) throws -> [ObjectID] {
        let context = ObjectContext(.privateQueue, coordinator: fixture.coordinator)
        let request = controller.context.performAndWait { controller.fetchRequest }
        return try context.performAndWait { try context.fetch(request).map(\.objectID) }
    }

    @Test func newRowsArePlacedInOrderAndStayFaults() async throws {
        let fixture = try await TwoContexts()
        let recorder = Recorder()
        let controller = try Self.visibleByRank(fixture, recorder: recorder)
        try fixture.other.performAndWait {
            for i in 0..<40 {
                let row = fixture.other.insert(Row.self)
                row.rank = Int64((i * 17) % 40)   // out of order
                row.title = "row \(i)"
                row.visible = i % 4 != 0          // a quarter do not match
            }
            try fixture.other.save()
        }
        let before = controller.statistics
        fixture.mergeOthersSaves()
        let fresh = try Self.freshIDs(controller, of: fixture)
        fixture.context.performAndWait {
            #expect(fresh.count == 30)
            #expect(controller.fetchedObjects.map(\.objectID) == fresh)
            // Placed without being filled: each match's values were read once, from the save.
            #expect(controller.fetchedObjects.allSatisfy { $0.isFault })
            #expect(controller.statistics.sortValueReads - before.sortValueReads == 30)
            #expect(recorder.batches.last?.rows.filter { $0.type == .insert }.count == 30)
            // A shown row reads its values when asked.
            let first = controller.object(at: FetchedIndexPath(section: 0, row: 0))
            #expect(first.rank == 1 && first.visible && !first.isFault)
        }
    }

    @Test func aDelegateWithoutRowReportsGetsNoObjectsMade() async throws {
        let fixture = try await TwoContexts()
        let batches = BatchesOnly()
        let controller = try Self.list(FetchRequest<Row>(sortKeys: [SortKey("rank")]), on: fixture.context, reportingTo: batches)
        try fixture.other.performAndWait {
            for i in 0..<200 {
                let row = fixture.other.insert(Row.self)
                row.rank = Int64(199 - i)
            }
            try fixture.other.save()
        }
        fixture.mergeOthersSaves()
        let fresh = try Self.freshIDs(controller, of: fixture)
        fixture.context.performAndWait {
            #expect(batches.rows == 200)
            // The list and its snapshot, and no object made for its rows but the one the first
            // report handed to the delegate's (default) row method.
            #expect(controller.snapshot.itemIdentifiers == fresh)
            #expect(fresh.filter { fixture.context.registeredObject(for: $0) != nil }.count <= 1)
            // Showing a row makes a screen of objects after it, as faults.
            let shown = controller.object(at: FetchedIndexPath(section: 0, row: 10))
            #expect(shown.objectID == fresh[10])
            let made = fresh.filter { fixture.context.registeredObject(for: $0) != nil }
            #expect(made.count >= ResultsIndex.objectPage && made.count <= ResultsIndex.objectPage + 1)
            #expect(made.allSatisfy { fixture.context.registeredObject(for: $0)?.isFault == true })
            #expect(shown.rank == 10)
            #expect(controller.indexPath(for: shown) == FetchedIndexPath(section: 0, row: 10))
        }
        // A later update of a row never made is reported where it is.
        try fixture.other.performAndWait {
            let row = try #require(try fixture.other.fetch(FetchRequest<Row>(predicate: ObjectPredicate.key("rank") == 150)).first)
            row.title = "changed"
            try fixture.other.save()
        }
        fixture.mergeOthersSaves()
        fixture.context.performAndWait {
            let update = batches.last?.rows.first
            #expect(update?.type == .update && update?.indexPath == FetchedIndexPath(section: 0, row: 150))
            #expect(controller.object(at: FetchedIndexPath(section: 0, row: 150)).title == "changed")
        }
    }

    /// `count` rows saved in `other` (ranks 0 ..< count) and merged into the fixture's list by
    /// rank, which `recorder` follows; the rows' IDs in order.
    private static func listOfMergedRows(_ fixture: TwoContexts, count: Int, recorder: any FetchedResultsControllerDelegate<Row>) throws
        -> (controller: FetchedResultsController<Row>, ids: [ObjectID]) {
        let controller = try Self.list(FetchRequest<Row>(sortKeys: [SortKey("rank")]), on: fixture.context, reportingTo: recorder)
        try fixture.other.performAndWait {
            for i in 0..<count { fixture.other.insert(Row.self).rank = Int64(i) }
            try fixture.other.save()
        }
        fixture.mergeOthersSaves()
        return (controller, try Self.freshIDs(controller, of: fixture))
    }

    @Test func aDeletedRowIsReportedWithTheObjectItsListHandedOut() async throws {
        let fixture = try await TwoContexts()
        let recorder = Recorder()
        let (controller, ids) = try Self.listOfMergedRows(fixture, count: 100, recorder: recorder)
        // Rows 0 ... 63 get objects when row 0 is shown; row 80's by the section's objects.
        let (shown, fromSection) = fixture.context.performAndWait {
            (controller.object(at: FetchedIndexPath(section: 0, row: 0)), controller.sections[0].objects[80])
        }
        let madeWithPage = fixture.context.performAndWait { fixture.context.registeredObject(for: ids[20]) }
        #expect(shown.objectID == ids[0] && fromSection.objectID == ids[80] && madeWithPage != nil)
        // Rows 20 and 80 (made) and 90 (never made) deleted by another context.
        recorder.events.removeAll()
        try fixture.changeInOther(ranks: [20, 80, 90]) { fixture.other.delete($0) }
        fixture.context.performAndWait {
            var deleted: [ObjectIdentifier] = []
            for event in recorder.events { if case .row(let object, _, .delete, _) = event { deleted.append(object) } }
            #expect(deleted.count == 3)
            #expect(deleted.contains(ObjectIdentifier(madeWithPage!)) && deleted.contains(ObjectIdentifier(fromSection)))
            // The row never made is handed over as a deleted stand-in, which the context does not hold.
            #expect(fixture.context.registeredObject(for: ids[90]) == nil)
            #expect(controller.snapshot.itemIdentifiers == ids.enumerated().filter { ![20, 80, 90].contains($0.offset) }.map(\.element))
        }
    }

    @Test func aForwardingDelegateKeepsGettingRows() async throws {
        let fixture = try await TwoContexts()
        let batchesOnly = BatchesOnly()
        let forwarder = Forwarder(to: batchesOnly)
        let (controller, _) = try Self.listOfMergedRows(fixture, count: 10, recorder: Recorder())
        fixture.context.performAndWait { controller.delegate = forwarder }
        try fixture.other.performAndWait {
            for i in 10..<13 { fixture.other.insert(Row.self).rank = Int64(i) }
            try fixture.other.save()
        }
        fixture.mergeOthersSaves()
        try fixture.changeInOther(ranks: [0]) { fixture.other.delete($0) }
        // The forwarded-to delegate's default row method ran; the forwarder still took every row.
        #expect(forwarder.rows == 4 && batchesOnly.rows == 4)
    }

    @Test func aRowNeverMadeIsNotAnotherContextsObject() async throws {
        let fixture = try await TwoContexts()
        let batches = BatchesOnly()   // (takes no rows: no object is made for them)
        let (controller, ids) = try Self.listOfMergedRows(fixture, count: 5, recorder: batches)
        let elsewhere = fixture.other.performAndWait { fixture.other.object(with: ids[2]) }
        fixture.context.performAndWait {
            #expect(controller.indexPath(for: elsewhere as! Row) == nil)
            let here = fixture.context.object(with: ids[2]) as! Row   // made outside the controller
            #expect(controller.indexPath(for: here) == FetchedIndexPath(section: 0, row: 2))
            #expect(batches.rows == 5)
        }
    }

    @Test func laterUpdatesInTheSameChangeSetCount() async throws {
        let fixture = try await TwoContexts()
        // The list on a second coordinator of the file: it hears of the writer's saves only
        // through the merge below, so the merge is in commit order and takes the saved rows.
        let ui = try await makeCoordinator(fixture.directory)
        let main = ObjectContext(.privateQueue, coordinator: ui)
        let recorder = Recorder()
        let controller = try Self.list(FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true, sortKeys: [SortKey("rank")]),
                                       on: main, reportingTo: recorder)
        // Two saves (inserts, then a new rank and visibility) merged as one change set, as a
        // stack coalescing its backlog merges them.
        try fixture.other.performAndWait {
            for i in 0..<10 {
                let row = fixture.other.insert(Row.self)
                row.rank = Int64(i)
                row.title = "row \(i)"
            }
            try fixture.other.save()
            for row in try fixture.other.fetch(FetchRequest<Row>()) {
                row.rank = 100 - row.rank                   // reversed
                if row.rank == 95 { row.visible = false }   // one leaves
            }
            try fixture.other.save()
        }
        let sets = fixture.collector.take()
        #expect(sets.count == 2)
        let combined = sets.dropFirst().reduce(sets[0]) { $0.merging($1) }
        main.performAndWait { main.merge(combined) }
        let fresh = try Self.freshIDs(controller, of: fixture)
        main.performAndWait {
            #expect(fresh.count == 9)
            #expect(controller.fetchedObjects.map(\.objectID) == fresh)
            #expect(controller.fetchedObjects.allSatisfy { $0.isFault })
            #expect(controller.fetchedObjects.map(\.rank) == (91...100).filter { $0 != 95 }.map(Int64.init))
        }
    }

    @Test func aKeyThroughARelationshipReadsTheObject() async throws {
        let fixture = try await TwoContexts()
        let recorder = Recorder()
        let controller = try Self.list(FetchRequest<Row>(sortKeys: [SortKey("list.name"), SortKey("rank")]), on: fixture.context, reportingTo: recorder)
        try fixture.other.performAndWait {
            let lists = ["b", "a"].map { name in
                let list = fixture.other.insert(RowList.self)
                list.name = name
                return list
            }
            for i in 0..<6 {
                let row = fixture.other.insert(Row.self)
                row.rank = Int64(i)
                row.list = lists[i % 2]
            }
            try fixture.other.save()
        }
        fixture.mergeOthersSaves()
        let fresh = try Self.freshIDs(controller, of: fixture)
        fixture.context.performAndWait {
            #expect(fresh.count == 6)
            #expect(controller.fetchedObjects.map(\.objectID) == fresh)
            #expect(controller.fetchedObjects.map { $0.list?.name ?? "" } == ["a", "a", "a", "b", "b", "b"])
        }
    }
}

/// A delegate that takes rows itself and forwards them to another that does not.
private final class Forwarder: FetchedResultsControllerDelegate {
    typealias Object = Row
    let target: BatchesOnly
    var rows = 0
    init(to target: BatchesOnly) { self.target = target }
    func controller(_ controller: FetchedResultsController<Row>, didChange object: Row, at indexPath: FetchedIndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: FetchedIndexPath?) {
        rows += 1
        target.controller(controller, didChange: object, at: indexPath, for: type, newIndexPath: newIndexPath)
    }
    func controller(_ controller: FetchedResultsController<Row>, didChangeContentWith changes: FetchedResultsChanges) {
        target.controller(controller, didChangeContentWith: changes)
    }
}

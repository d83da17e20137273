import Strata
import StrataFetchedResults
import Testing

@Suite("Parent saves")
struct ParentSaveTests {
    /// Inserts `count` rows spaced apart by position in `child` and saves them into its parent
    /// (they keep temporary IDs until the parent saves). Call it on the child's queue.
    static func pushRows(_ count: Int, from child: ObjectContext) throws {
        for i in 0..<count {
            let row = child.insert(Row.self)
            row.position = Int64(i) * PositionRenumbering.spacing
        }
        try child.save()
    }

    /// A child's rows pushed to its parent get permanent IDs when the parent saves to the store;
    /// the child's observers are not told, but the controller's snapshot shows the IDs the
    /// objects hold, so it still equals a fresh fetch.
    @Test func snapshotShowsPermanentIDsAfterTheParentSaves() async throws {   // the new IDs reach the child through its queue, before the next performAndWait
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let writer = ObjectContext(.privateQueue, coordinator: coordinator)
        let child = ObjectContext(.privateQueue, parent: writer)
        let request = FetchRequest<Row>(sortKeys: [SortKey("position")])
        let controller = try child.performAndWait { () throws -> FetchedResultsController<Row> in
            try Self.pushRows(20, from: child)
            let controller = try FetchedResultsController(fetchRequest: request, context: child)
            try controller.performFetch()
            return controller
        }
        try writer.performAndWait { try writer.save() }
        try child.performAndWait {
            let fresh = try child.fetchObjectIDs(request)
            #expect(fresh.allSatisfy { !$0.isTemporary })
            #expect(controller.snapshot.itemIdentifiers == fresh)
            #expect(controller.sections[0].objectIDs == fresh)
            // A move after that is still taken in silently and matches a fresh fetch.
            try controller.moveObject(from: FetchedIndexPath(section: 0, row: 19), to: FetchedIndexPath(section: 0, row: 0), positionKey: "position")
            try child.save()
            #expect(controller.snapshot.itemIdentifiers == (try child.fetchObjectIDs(request)))
        }
    }

    /// The same for a `fetchLimit` window and its spare rows, next to a list of every row on
    /// the child (so the child holds them filled), as the `reorder` scenario has them on a
    /// child main context: the window learns the parent's permanent IDs from its objects, so
    /// moves into and out of it are still decided in memory, without fetching the window.
    @Test func aWindowLearnsItsParentsPermanentIDsWithoutAFetch() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let writer = ObjectContext(.privateQueue, coordinator: coordinator)
        let child = ObjectContext(.privateQueue, parent: writer)
        let request = FetchRequest<Row>(sortKeys: [SortKey("position")])
        var windowRequest = request
        windowRequest.fetchLimit = 10
        let (list, window) = try child.performAndWait { () throws -> (FetchedResultsController<Row>, FetchedResultsController<Row>) in
            try Self.pushRows(100, from: child)
            let list = try FetchedResultsController(fetchRequest: request, context: child)
            try list.performFetch()
            let window = try FetchedResultsController(fetchRequest: windowRequest, context: child)
            try window.performFetch()
            return (list, window)
        }
        try writer.performAndWait { try writer.save() }
        let refetches = child.performAndWait { window.statistics.windowRefetches }
        // Out of the window, into it, out twice more, and in (the window keeps 4 spares).
        for (from, to) in [(2, 60), (70, 0), (0, 80), (1, 90), (50, 3)] {
            try child.performAndWait {
                try list.moveObject(from: FetchedIndexPath(section: 0, row: from), to: FetchedIndexPath(section: 0, row: to), positionKey: "position")
                try child.save()
                let fresh = try child.fetchObjectIDs(windowRequest)
                #expect(fresh.allSatisfy { !$0.isTemporary })
                #expect(window.snapshot.itemIdentifiers == fresh, "move \(from) → \(to)")
            }
        }
        #expect(child.performAndWait { window.statistics.windowRefetches } == refetches)
    }
}

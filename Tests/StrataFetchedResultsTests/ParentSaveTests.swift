import Strata
import StrataFetchedResults
import Testing

@Suite("Parent saves")
struct ParentSaveTests {
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
            for i in 0..<20 {
                let row = child.insert(Row.self)
                row.position = Int64(i) * PositionRenumbering.spacing
            }
            try child.save()
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
}

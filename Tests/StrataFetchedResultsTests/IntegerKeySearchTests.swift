import Foundation
import Strata
import StrataFetchedResults
import Testing

/// Under one integer sort key the controller finds a result by comparing integers in place:
/// both directions, and equal keys told apart by ID as a fetch orders them.
@Suite("Integer sort key search")
struct IntegerKeySearchTests {
    @Test(arguments: [true, false])
    func updatesFindEveryResultWithoutAScan(ascending: Bool) async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            // Ranks repeat (0, 0, 0, 1, 1, 1, …): most searches meet equal keys.
            for i in 0..<300 { let row = context.insert(Row.self); row.rank = Int64(i / 3) }
            try context.save()
            let controller = try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("rank", ascending: ascending)]),
                                                          context: context)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            let rows = controller.fetchedObjects
            let before = controller.statistics
            for row in rows { row.title = "edited" }   // a key the request does not sort by
            try context.save()
            let after = controller.statistics
            // Each update was found by binary search: no scan, about log2(300) comparisons each.
            #expect(after.linearScans == before.linearScans)
            #expect(after.comparisons - before.comparisons <= rows.count * 10)
            let changes = try #require(recorder.batches.last)
            #expect(changes.rows.count == rows.count)
            for change in changes.rows {
                #expect(change.type == .update)
                let path = try #require(change.indexPath)
                #expect(rows[path.row].objectID == change.objectID)
            }
            #expect(controller.fetchedObjects.map(\.objectID) == rows.map(\.objectID))
        }
    }
}

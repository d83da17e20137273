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

    /// Unsaved objects (temporary IDs) with equal keys are told apart as a fetch orders them.
    @Test func unsavedObjectsWithEqualKeysAreFound() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            for i in 0..<60 { let row = context.insert(Row.self); row.rank = Int64(i / 4) }
            context.processPendingChanges()   // the inserts told; the edits below are updates
            let controller = try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("rank")]), context: context)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            let rows = controller.fetchedObjects
            #expect(rows.count == 60 && rows.allSatisfy { $0.objectID.isTemporary })
            let before = controller.statistics
            for row in rows { row.title = "edited" }
            context.processPendingChanges()
            #expect(controller.statistics.linearScans == before.linearScans)
            let changes = try #require(recorder.batches.last)
            #expect(changes.rows.count == rows.count)
            for change in changes.rows { #expect(rows[try #require(change.indexPath).row].objectID == change.objectID) }
        }
    }

    /// Past a batched controller's first page the entries were never read: the search gives up
    /// there and the general one finds them (by identity), with the same reports.
    @Test func entriesNeverReadFallBackToTheGeneralSearch() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            for i in 0..<200 { let row = context.insert(Row.self); row.rank = Int64(i) }
            try context.save()
            var request = FetchRequest<Row>(sortKeys: [SortKey("rank")])
            request.fetchBatchSize = 20
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            let rows = controller.fetchedObjects
            let late = rows[150], early = rows[5]
            late.title = "late"
            early.title = "early"
            try context.save()
            let changes = try #require(recorder.batches.last)
            let paths = Dictionary(uniqueKeysWithValues: changes.rows.map { ($0.objectID, $0.indexPath) })
            #expect(paths[late.objectID] == FetchedIndexPath(section: 0, row: 150))
            #expect(paths[early.objectID] == FetchedIndexPath(section: 0, row: 5))
        }
    }
}

import Foundation
import Strata
@testable import StrataFetchedResults
import Testing

/// What a controller remembers of the updates it reports: values a later change set of its own
/// context could carry again (an echo), and nothing for store saves merged into clean results.
@Suite("Merged updates and shown values")
struct MergedUpdateMemoryTests {
    @Test func mergedSavesIntoCleanResultsAreReportedAndNotRemembered() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let collector = ChangeCollector()
        let token = other.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        defer { token.cancel() }
        let recorder = Recorder()
        let (controller, id) = try context.performAndWait {
            let row = context.insert(Row.self); row.title = "a"; row.rank = 1
            try context.save()
            let controller = try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("rank")]), context: context)
            controller.delegate = recorder
            try controller.performFetch()
            return (controller, row.objectID)
        }
        for title in ["b", "a", "b"] { try saveTitle(title, in: other, mergingInto: context, through: collector) }
        context.performAndWait {
            // Each merge changed what the list shows, back and forth: each is an update.
            #expect(recorder.batches.map { $0.rows.map(\.type) } == [[.update], [.update], [.update]])
            #expect(controller.fetchedObjects.map(\.title) == ["b"])
            #expect(controller.shownValues[id] == nil)
        }
    }

    @Test func valuesShownBeforeAMergeAreKeptUpToDate() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let collector = ChangeCollector()
        let token = other.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        defer { token.cancel() }
        let recorder = Recorder()
        let controller = try context.performAndWait {
            let row = context.insert(Row.self); row.title = "a"; row.rank = 1
            try context.save()
            let controller = try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("rank")]), context: context)
            controller.delegate = recorder
            try controller.performFetch()
            row.title = "b"
            context.processPendingChanges()   // shown: "b"
            try context.save()                // an echo
            return controller
        }
        for title in ["c", "b"] { try saveTitle(title, in: other, mergingInto: context, through: collector) }
        context.performAndWait {
            // "b" again after "c" is a change of what is shown, not an echo of the first "b".
            #expect(recorder.batches.map { $0.rows.map(\.type) } == [[.update], [.update], [.update]])
            #expect(controller.fetchedObjects.map(\.title) == ["b"])
        }
    }

    /// Saves `title` as the row's title in `other`, then merges what it saved into `context`.
    private func saveTitle(_ title: String, in other: ObjectContext, mergingInto context: ObjectContext,
                           through collector: ChangeCollector) throws {
        try other.performAndWait {
            try #require(try other.fetch(FetchRequest<Row>()).first).title = title
            try other.save()
        }
        context.performAndWait { for changes in collector.take() { context.merge(changes) } }
    }
}

import Foundation
import Strata
@testable import StrataFetchedResults
import Testing

/// What a controller remembers of the updates it reports: values a later change set of its own
/// context could carry again (an echo), and nothing for store saves merged into clean results.
@Suite("Merged updates and shown values")
struct MergedUpdateMemoryTests {
    @Test func mergedSavesIntoCleanResultsAreReportedAndNotRemembered() async throws {
        let store = try await TwoContexts()
        let context = store.context
        let recorder = Recorder()
        let (controller, row) = try store.listOfOneSavedRow(reportingTo: recorder)
        let id = context.performAndWait { row.objectID }
        for title in ["b", "a", "b"] {
            try store.saveTitleInOther(title)
            store.mergeOthersSaves()
        }
        context.performAndWait {
            // Each merge changed what the list shows, back and forth: each is an update.
            #expect(recorder.batches.map { $0.rows.map(\.type) } == [[.update], [.update], [.update]])
            #expect(controller.fetchedObjects.map(\.title) == ["b"])
            #expect(controller.shownValues[id] == nil)
        }
    }

    @Test func valuesShownBeforeAMergeAreKeptUpToDate() async throws {
        let store = try await TwoContexts()
        let context = store.context
        let recorder = Recorder()
        let (controller, row) = try store.listOfOneSavedRow(reportingTo: recorder)
        try context.performAndWait {
            row.title = "b"
            context.processPendingChanges()   // shown: "b"
            try context.save()                // an echo
        }
        for title in ["c", "b"] {
            try store.saveTitleInOther(title)
            store.mergeOthersSaves()
        }
        context.performAndWait {
            // "b" again after "c" is a change of what is shown, not an echo of the first "b".
            #expect(recorder.batches.map { $0.rows.map(\.type) } == [[.update], [.update], [.update]])
            #expect(controller.fetchedObjects.map(\.title) == ["b"])
        }
    }
}

import Foundation
import Strata
import StrataFetchedResults
import Testing

/// Focused cases the random sequences found: updates that change nothing shown, and windows
/// (`fetchLimit`, `fetchOffset`) that objects enter from outside.
@Suite("Update reports and windows")
struct UpdateReportTests {
    /// A value set and set back before a save (or set to what it was) leaves the save's change
    /// set with no changed key for that object: nothing shown changed, nothing is reported.
    @Test func anUpdateWithoutChangedKeysIsNotReported() async throws {
        let store = try await TwoContexts()
        let context = store.context, other = store.other, collector = store.collector
        let recorder = Recorder()
        let (controller, row) = try store.listOfOneSavedRow(reportingTo: recorder)
        try context.performAndWait {
            row.title = "b"
            row.title = "a"
            try context.save()
        }
        try other.performAndWait {
            let row = try #require(try other.fetch(FetchRequest<Row>()).first)
            row.rank = 2
            row.rank = 1                                            // back to the saved value
            try other.save()
        }
        let sets = collector.take()
        // The engine does publish the object as updated, with no changed key.
        #expect(sets.contains { $0.updated.count == 1 && $0.updated.values.allSatisfy(\.isEmpty) })
        context.performAndWait {
            for changes in sets { context.merge(changes) }
            #expect(recorder.calls == 0)
            #expect(controller.fetchedObjects.count == 1)
        }
    }

    /// An object edited, taken out of the results, brought back (all told by
    /// `processPendingChanges()`) and then saved: the save carries edits the list already
    /// shows, so it is an echo, not an update.
    @Test func aSaveOfValuesShownWhenAnObjectCameBackIsAnEcho() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let row = context.insert(Row.self); row.title = "a"; row.rank = 1
            try context.save()
            let request = FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true, sortKeys: [SortKey("rank")])
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            row.title = "b"
            context.processPendingChanges()
            row.visible = false
            context.processPendingChanges()
            row.visible = true
            context.processPendingChanges()
            #expect(recorder.batches.flatMap(\.rows).map(\.type) == [.update, .delete, .insert])
            try context.save()                                      // title "b" again, already shown
            #expect(recorder.batches.count == 3)
            row.title = "c"
            try context.save()                                      // a real change is still reported
            #expect(recorder.batches.count == 4)
            #expect(recorder.batches.last?.rows.map(\.type) == [.update])
        }
    }

    /// A merge into a context whose object has an unsaved edit of the merged key keeps the
    /// edit: the object shows what it showed, so the merge is not an update, and the later save
    /// of the edit (already shown) is an echo.
    @Test func aMergeUnderAnUnsavedEditOfTheSameKeyIsNotAnUpdate() async throws {
        let store = try await TwoContexts()
        let context = store.context, other = store.other, collector = store.collector
        let recorder = Recorder()
        let (controller, row) = try store.listOfOneSavedRow(reportingTo: recorder)
        context.performAndWait {
            row.title = "local"
            context.processPendingChanges()
        }
        try other.performAndWait {
            try #require(try other.fetch(FetchRequest<Row>()).first).title = "remote"
            try other.save()
        }
        try context.performAndWait {
            #expect(recorder.batches.count == 1)
            for changes in collector.take() { context.merge(changes) }
            #expect(row.title == "local")                           // the merge kept the edit
            #expect(recorder.batches.count == 1)
            try context.save()
            #expect(recorder.batches.count == 1)
            #expect(controller.fetchedObjects.map(\.title) == ["local"])
        }
    }

    /// With `fetchLimit` (and `fetchOffset`) the results are the window a fetch returns: an
    /// object leaving lets the next one in, one arriving pushes the last one out.
    @Test(arguments: [(3, 0), (2, 1)])
    func aWindowStaysTheWindowAFetchReturns(limit: Int, offset: Int) async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            for rank in 0..<6 { let row = context.insert(Row.self); row.rank = Int64(rank) }
            try context.save()
            var request = FetchRequest<Row>(sortKeys: [SortKey("rank")])
            request.fetchLimit = limit
            request.fetchOffset = offset
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            let ranks = { controller.fetchedObjects.map(\.rank) }
            let first = Array(Int64(offset)..<Int64(offset + limit))
            #expect(ranks() == first)
            var model = ListModel(controller)

            // The first row in the window goes: the next one outside comes in.
            let leaving = controller.fetchedObjects[0]
            context.delete(leaving)
            try context.save()
            #expect(ranks() == first.dropFirst() + [first.last! + 1])
            #expect(controller.fetchedObjects.map(\.objectID) == (try context.fetchObjectIDs(request)))
            #expect(recorder.batches.first?.rows.map(\.type) == [.delete, .insert])

            // A row sorted first arrives: everything shifts, the last one leaves.
            let arriving = context.insert(Row.self)
            arriving.rank = -1
            try context.save()
            #expect(controller.fetchedObjects.map(\.objectID) == (try context.fetchObjectIDs(request)))
            #expect(recorder.batches.count == 2)

            // An update that keeps a row in place is reported as an update.
            let stay = controller.fetchedObjects[limit - 1]
            stay.title = "changed"
            try context.save()
            #expect(recorder.batches.count == 3)
            #expect(recorder.batches.last?.rows.map(\.type) == [.update])
            #expect(recorder.batches.last?.rows.first?.objectID == stay.objectID)

            // The reports, applied in order to the first results, give the results.
            #expect(applyEvents(recorder, from: 0, to: &model))
            #expect(model == ListModel(controller))
        }
    }
}

import Foundation
import Strata
import StrataFetchedResults
import Testing

@Suite("FetchedResultsController basics")
struct ControllerTests {
    func sectionedRequest() -> FetchRequest<Row> {
        FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true, sortKeys: [SortKey("group"), SortKey("rank")])
    }

    @Test func sectionsObjectsAndIndexPaths() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            for (group, rank) in [("B", 2), ("A", 1), ("B", 1), ("C", 5), ("A", 3)] {
                let row = context.insert(Row.self)
                row.group = group
                row.rank = Int64(rank)
            }
            let hidden = context.insert(Row.self)
            hidden.visible = false
            try context.save()
            let controller = try FetchedResultsController(fetchRequest: sectionedRequest(), context: context, sectionKeyPath: "group")
            try controller.performFetch()
            #expect(controller.sections.map(\.name) == ["A", "B", "C"])
            #expect(controller.sections.map(\.numberOfObjects) == [2, 2, 1])
            #expect(controller.fetchedObjects.map(\.rank) == [1, 3, 1, 2, 5])
            let object = controller.object(at: FetchedIndexPath(section: 1, row: 1))
            #expect(object.group == "B" && object.rank == 2)
            #expect(controller.indexPath(for: object) == FetchedIndexPath(section: 1, row: 1))
            #expect(controller.indexPath(for: hidden) == nil)
            #expect(controller.snapshot.sectionIdentifiers == ["A", "B", "C"])
        }
    }

    /// Core Data allows a section key other than the first sort key's; Strata sorts by it first.
    @Test func sectionsByAKeyThatIsNotTheFirstSortKey() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let home = context.insert(RowList.self), work = context.insert(RowList.self)
            home.name = "home"
            work.name = "work"
            for (group, rank, list) in [("B", 2, work), ("A", 4, home), ("B", 1, home), ("C", 5, work), ("A", 3, work)] {
                let row = context.insert(Row.self)
                row.group = group
                row.rank = Int64(rank)
                row.list = list
            }
            try context.save()
            let byRank = FetchRequest<Row>(sortKeys: [SortKey("rank", ascending: false)])
            let controller = try FetchedResultsController(fetchRequest: byRank, context: context, sectionKeyPath: "group")
            try controller.performFetch()
            // Sections in the first sort key's direction (descending), rows by rank within each.
            #expect(controller.sections.map(\.name) == ["C", "B", "A"])
            #expect(controller.fetchedObjects.map(\.rank) == [5, 2, 1, 4, 3])
            #expect(controller.fetchRequest.sortKeys.map(\.keyPath) == ["rank"])   // the caller's request is unchanged

            let recorder = Recorder()
            controller.delegate = recorder
            let moved = try #require(controller.fetchedObjects.first { $0.rank == 1 })
            moved.group = "D"                                        // a new section, first in descending order
            try context.save()
            #expect(controller.sections.map(\.name) == ["D", "C", "B", "A"])
            #expect(controller.indexPath(for: moved) == FetchedIndexPath(section: 0, row: 0))
            let model = ListModel(fetched: try context.fetch(FetchRequest<Row>(sortKeys: [SortKey("group", ascending: false), SortKey("rank", ascending: false)])),
                                  key: { $0.group })
            #expect(ListModel(controller) == model)

            // A key path through a to-one.
            let byList = try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("rank")]), context: context,
                                                      sectionKeyPath: "list.name")
            try byList.performFetch()
            #expect(byList.sections.map(\.name) == ["home", "work"])
            #expect(byList.sections.map { $0.objects.map(\.rank) } == [[1, 4], [2, 3, 5]])
        }
    }

    @Test func rejectsBadRequests() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        context.performAndWait {
            #expect(throws: FetchedResultsError.self) { try FetchedResultsController(fetchRequest: FetchRequest<Row>(), context: context) }
            #expect(throws: (any Error).self) {
                try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("rank")]), context: context, sectionKeyPath: "nope")
            }
            #expect(throws: (any Error).self) { try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("nope")]), context: context) }
        }
    }

    @Test func reportsOneBatchPerSaveWithSectionChanges() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            let a = context.insert(Row.self); a.group = "A"; a.rank = 1
            let b = context.insert(Row.self); b.group = "B"; b.rank = 1
            try context.save()
            let controller = try FetchedResultsController(fetchRequest: sectionedRequest(), context: context, sectionKeyPath: "group")
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            var model = ListModel(controller)

            // Move b across sections into a new one; hide a (leaves the predicate); insert c.
            b.group = "C"
            a.visible = false
            let c = context.insert(Row.self); c.group = "B"; c.rank = 7
            try context.save()
            #expect(recorder.batches.count == 1)
            let batch = try #require(recorder.batches.first)
            #expect(Set(batch.sections.map(\.type)) == [.insert, .delete])
            #expect(batch.sections.contains { $0.type == .delete && $0.name == "A" && $0.index == 0 })
            #expect(batch.sections.contains { $0.type == .insert && $0.name == "C" && $0.index == 1 })
            #expect(batch.rows.contains { $0.type == .move && $0.objectID == b.objectID })
            #expect(batch.rows.contains { $0.type == .delete && $0.indexPath == FetchedIndexPath(section: 0, row: 0) })
            #expect(batch.rows.contains { $0.type == .insert && $0.objectID == c.objectID })
            #expect(applyEvents(recorder, from: 0, to: &model))
            #expect(model == ListModel(controller))
            #expect(controller.sections.map(\.name) == ["B", "C"])

            // A pure update in place.
            let events = recorder.calls
            c.title = "renamed"
            try context.save()
            let last = try #require(recorder.batches.last)
            #expect(last.rows == [FetchedRowChange(objectID: c.objectID, type: .update, indexPath: FetchedIndexPath(section: 0, row: 0),
                                                   newIndexPath: FetchedIndexPath(section: 0, row: 0))])
            #expect(recorder.calls == events + 3)   // will, one row, did
        }
    }

    @Test func followsPendingChangesAndMerges() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let main = ObjectContext(.privateQueue, coordinator: coordinator)
        let background = ObjectContext(.privateQueue, coordinator: coordinator)
        let collector = ChangeCollector()
        let token = background.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        defer { token.cancel() }
        let recorder = Recorder()
        let controller = try main.performAndWait {
            let controller = try FetchedResultsController(fetchRequest: sectionedRequest(), context: main, sectionKeyPath: "group")
            controller.delegate = recorder
            try controller.performFetch()
            // Unsaved: reported once processed.
            let row = main.insert(Row.self); row.group = "A"
            #expect(recorder.batches.isEmpty)
            main.processPendingChanges()
            #expect(recorder.batches.count == 1)
            #expect(controller.fetchedObjects == [row])
            // Saving the same insert reports nothing new (same place, new ID).
            try main.save()
            #expect(recorder.batches.count == 1)
            #expect(controller.snapshot.itemIdentifiers == [row.objectID])
            return controller
        }
        try background.performAndWait {
            let row = background.insert(Row.self); row.group = "B"
            try background.save()
        }
        try main.performAndWait {
            for changes in collector.take() { main.merge(changes) }
            #expect(recorder.batches.count == 2)
            #expect(controller.sections.map(\.name) == ["A", "B"])
            let fresh = try main.fetchObjectIDs(sectionedRequest())
            #expect(fresh == controller.snapshot.itemIdentifiers)
        }
    }

    @Test func batchSizeKeepsLaterPagesFaults() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            _ = try context.execute(BatchInsertRequest(entityName: "Row", keys: ["group", "rank", "title", "visible", "position"],
                                                      rows: (0..<1_000).map { [.string("A"), .integer(Int64($0)), .string("t\($0)"), .bool(true), .integer(0)] }))
            var request = FetchRequest<Row>(sortKeys: [SortKey("rank")])
            request.fetchBatchSize = 50
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            try controller.performFetch()
            let objects = controller.fetchedObjects
            #expect(objects.count == 1_000)
            #expect(objects.filter(\.isFault).count == 1_000)
            _ = objects[0].rank   // touching one reads its page
            #expect(objects.filter(\.isFault).count == 950)
            // A change report reads at most the pages its searches touch.
            let extra = context.insert(Row.self); extra.rank = 500
            try context.save()
            #expect(objects.filter(\.isFault).count >= 950 - 50 * 12)
            let fresh = try context.fetchObjectIDs(request)
            #expect(controller.snapshot.itemIdentifiers == fresh)
        }
    }

    /// A merged update of a fault never read (its old values unknown) is still placed right.
    @Test func mergedUpdateOfUnreadFault() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let main = ObjectContext(.privateQueue, coordinator: coordinator)
        let background = ObjectContext(.privateQueue, coordinator: coordinator)
        let collector = ChangeCollector()
        let token = background.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        defer { token.cancel() }
        var request = FetchRequest<Row>(sortKeys: [SortKey("rank")])
        request.fetchBatchSize = 20
        let recorder = Recorder()
        let controller = try main.performAndWait {
            _ = try main.execute(BatchInsertRequest(entityName: "Row", keys: ["group", "rank", "title", "visible", "position"],
                                                   rows: (0..<200).map { [.string("A"), .integer(Int64($0 * 2)), .string(""), .bool(true), .integer(0)] }))
            let controller = try FetchedResultsController(fetchRequest: request, context: main)
            controller.delegate = recorder
            try controller.performFetch()
            return controller
        }
        var model = main.performAndWait { ListModel(controller) }
        try background.performAndWait {
            var lookup = FetchRequest<Row>(predicate: ObjectPredicate.key("rank") == 300, sortKeys: [SortKey("rank")])
            lookup.fetchLimit = 1
            let row = try #require(try background.fetch(lookup).first)
            row.rank = 3
            try background.save()
        }
        try main.performAndWait {
            for changes in collector.take() { main.merge(changes) }
            #expect(applyEvents(recorder, from: 0, to: &model))
            #expect(model == ListModel(controller))
            let fresh = try main.fetchObjectIDs(request)
            #expect(controller.snapshot.itemIdentifiers == fresh)
            #expect(recorder.batches.last?.rows.map(\.type) == [.move])
            #expect(controller.statistics.linearScans >= 1)
        }
    }

    /// One update in a 100k-object sectioned result costs O(log n) comparisons, not O(n).
    @Test func oneUpdateInHundredThousandIsLogarithmic() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let n = 100_000
        try context.performAndWait {
            _ = try context.execute(BatchInsertRequest(entityName: "Row", keys: ["group", "rank", "title", "visible", "position"],
                                                      rows: (0..<n).map { [.string("G\($0 % 10)"), .integer(Int64($0)), .string(""), .bool(true), .integer(0)] }))
            let controller = try FetchedResultsController(fetchRequest: sectionedRequest(), context: context, sectionKeyPath: "group")
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            #expect(controller.sections.count == 10)
            let object = controller.object(at: FetchedIndexPath(section: 3, row: 5_000))
            let before = controller.statistics
            object.rank = 7          // moves near the top of its section
            try context.save()
            let after = controller.statistics
            let comparisons = after.comparisons - before.comparisons
            // Find old (log2 10 + log2 10k) + place new + find new path: a few × 17.
            #expect(comparisons <= 4 * 18, "comparisons: \(comparisons)")
            #expect(after.evaluations - before.evaluations == 1)
            #expect(after.linearScans == before.linearScans)
            #expect(after.sortValueReads - before.sortValueReads == 1)
            #expect(recorder.batches.last?.rows.first?.type == .move)
            #expect(controller.indexPath(for: object) == FetchedIndexPath(section: 3, row: 1))   // after rank 3

            // One insert and one delete: the same order of work.
            var mark = controller.statistics
            let inserted = context.insert(Row.self)
            inserted.group = "G7"
            inserted.rank = 50_001
            try context.save()
            #expect(controller.statistics.comparisons - mark.comparisons <= 4 * 18, "insert: \(controller.statistics.comparisons - mark.comparisons)")
            #expect(controller.statistics.evaluations - mark.evaluations == 1)
            mark = controller.statistics
            context.delete(controller.object(at: FetchedIndexPath(section: 9, row: 9_000)))
            try context.save()
            #expect(controller.statistics.comparisons - mark.comparisons <= 2 * 18, "delete: \(controller.statistics.comparisons - mark.comparisons)")
            #expect(controller.statistics.evaluations == mark.evaluations)
            #expect(controller.sections.map(\.numberOfObjects).reduce(0, +) == n)
            if ProcessInfo.processInfo.environment["FRC_STATS"] != nil { print("100k: update \(comparisons) comparisons; totals \(controller.statistics)") }
        }
    }
}

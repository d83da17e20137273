import Foundation
import Strata
import StrataFetchedResults
import Testing

/// The engine additions the controller is built on: processPendingChanges and FetchEvaluator.
@Suite("Engine hooks")
struct EngineHookTests {
    @Test func processPendingChangesPublishesDeltas() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let collector = ChangeCollector()
        let token = context.observeChanges { changes in collector.sets.withLock { $0.append(changes) } }
        defer { token.cancel() }
        try context.performAndWait {
            let row = context.insert(Row.self)
            context.processPendingChanges()
            var sets = collector.take()
            #expect(sets.count == 1 && sets[0].inserted == [row.objectID])
            context.processPendingChanges()
            #expect(collector.take().isEmpty)   // nothing new

            row.title = "a"
            context.processPendingChanges()
            sets = collector.take()
            #expect(sets.count == 1 && sets[0].updated[row.objectID] == ["title": .string("a")])

            try context.save()   // the save's own change set; nothing re-reported
            sets = collector.take()
            #expect(sets.count == 1 && !sets[0].permanentIDs.isEmpty)

            row.rank = 3
            context.processPendingChanges()
            _ = collector.take()
            context.rollback()
            context.processPendingChanges()
            sets = collector.take()
            #expect(sets.count == 1 && sets[0].updated[row.objectID] == ["rank": .integer(0)])

            let temporary = context.insert(Row.self)
            context.processPendingChanges()
            let temporaryID = temporary.objectID
            _ = collector.take()
            context.delete(temporary)
            try context.save()   // nothing to save, but the delete of the reported insert is told
            sets = collector.take()
            #expect(sets.contains { $0.deleted.contains(temporaryID) })
        }
    }

    @Test func evaluatorMatchesAndOrdersLikeFetch() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try context.performAndWait {
            for i in 0..<30 {
                let row = context.insert(Row.self)
                row.group = ["b", "A", "a", "B"][i % 4]
                row.rank = Int64((i * 7) % 5)
                row.visible = i % 3 != 0
            }
            try context.save()
            let request = FetchRequest<Row>(predicate: ObjectPredicate.key("visible") == true,
                                            sortKeys: [SortKey("group", comparison: .caseInsensitive), SortKey("rank", ascending: false)])
            let evaluator = try request.evaluator(in: context)
            let all = try context.fetch(FetchRequest<Row>())
            let mine = all.filter(evaluator.matches).sorted(by: evaluator.areInIncreasingOrder)
            #expect(mine.map(\.objectID) == (try context.fetchObjectIDs(request)))
            let byValues = all.filter(evaluator.matches).sorted {
                evaluator.compare(evaluator.sortValues(of: $0), $0.objectID, evaluator.sortValues(of: $1), $1.objectID) < 0
            }
            #expect(byValues == mine)
            #expect(try request.evaluate(mine[0], in: context))
            #expect(evaluator.compareValue(.string("a"), .string("A"), key: 0) == 0)
        }
    }
}

import StrataRandom
import Foundation
import Strata
import StrataFetchedResults
import Testing

@Suite("Manual reorder")
struct ReorderTests {
    /// The renumbering plan always yields the new order, and costs at most |from − to| + 1 writes.
    @Test(arguments: 0..<200)
    func renumberingKeepsOrderWithFewWrites(seed: Int) {
        var random = SplitMix64(seed: UInt64(seed))
        let n = 2 + Int(random.next() % 12)
        var positions: [Int64] = []
        var value: Int64 = Int64(random.next() % 5)
        for _ in 0..<n { positions.append(value); value += 1 + (random.next() % 3 == 0 ? Int64(random.next() % 4) : 0) }
        let source = Int(random.next() % UInt64(n)), destination = Int(random.next() % UInt64(n))
        let writes = PositionRenumbering.writes(movingFrom: source, to: destination, positions: positions)
        var updated = positions
        for write in writes { updated[write.index] = write.position }
        var expected = Array(0..<n)
        expected.insert(expected.remove(at: source), at: destination)
        let order = Array(0..<n).sorted { updated[$0] < updated[$1] }
        #expect(order == expected, "seed \(seed): \(positions) \(source)→\(destination) writes \(writes)")
        #expect(Set(updated).count == n, "seed \(seed): positions stay distinct")
        #expect(writes.count <= abs(source - destination) + 1, "seed \(seed)")
        if source != destination { #expect(!writes.isEmpty) }
    }

    @Test func gapsCostOneWrite() {
        #expect(PositionRenumbering.writes(movingFrom: 3, to: 0, positions: [10, 20, 30, 40]) == [.init(index: 3, position: 9)])
        #expect(PositionRenumbering.writes(movingFrom: 0, to: 2, positions: [10, 20, 30, 40]) == [.init(index: 0, position: 35)])
        #expect(PositionRenumbering.writes(movingFrom: 0, to: 3, positions: [0, 1, 2, 3]) == [.init(index: 0, position: 4)])
        #expect(PositionRenumbering.writes(movingFrom: 1, to: 1, positions: [0, 1]) == [])
    }

    /// The IDs of every row ordered by position, fetched in a new context on `coordinator`
    /// (so only saved positions count), and whether the positions are distinct.
    static func savedOrder(_ coordinator: StoreCoordinator) throws -> (ids: [ObjectID], titles: [String], distinct: Bool) {
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        return try reader.performAndWait {
            let rows = try reader.fetch(FetchRequest<Row>(sortKeys: [SortKey("position")]))
            return (rows.map(\.objectID), rows.map(\.title), Set(rows.map(\.position)).count == rows.count)
        }
    }

    @Test func suppressedMovesMakeNoDelegateCallsAndSettle() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let request = FetchRequest<Row>(sortKeys: [SortKey("position")])
        let expected = try context.performAndWait { () throws -> [ObjectID] in
            for i in 0..<20 { let row = context.insert(Row.self); row.position = Int64(i); row.title = "r\(i)" }
            try context.save()
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            // The order the moves must give, computed here: a table's move is remove, then insert.
            var expected = try context.fetch(request).map(\.objectID)
            #expect(controller.snapshot.itemIdentifiers == expected)
            var random = SplitMix64(seed: 99)
            for i in 0..<30 {
                let from = Int(random.next() % 20), to = Int(random.next() % 20)
                try controller.performManualReorder {
                    try controller.moveObject(from: FetchedIndexPath(section: 0, row: from), to: FetchedIndexPath(section: 0, row: to), positionKey: "position")
                    if i % 3 == 0 { try context.save() }   // sometimes saved now, sometimes later
                }
                expected.insert(expected.remove(at: from), at: to)
                #expect(recorder.calls == 0)
                #expect(controller.snapshot.itemIdentifiers == expected, "move \(i): \(from) → \(to)")
                let rows = try context.fetch(request)   // unsaved positions included
                #expect(rows.map(\.objectID) == expected, "move \(i): positions written give another order")
                #expect(Set(rows.map(\.position)).count == rows.count, "move \(i): positions stay distinct")
            }
            try context.save()   // the echo of suppressed values is not reported either
            #expect(recorder.calls == 0)
            #expect(controller.snapshot.itemIdentifiers == expected)
            // A real change afterwards is reported.
            let first = controller.object(at: FetchedIndexPath(section: 0, row: 0))
            first.title = "changed"
            try context.save()
            #expect(recorder.batches.count == 1)
            #expect(recorder.batches.first?.rows.map(\.type) == [.update])
            #expect(recorder.batches.first?.rows.first?.objectID == expected[0])
            return expected
        }
        // What was saved, read back by another context, is the order the moves asked for.
        let saved = try Self.savedOrder(coordinator)
        #expect(saved.ids == expected)
        #expect(saved.distinct)
    }
}

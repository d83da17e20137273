import StrataRandom
import Strata
import StrataFetchedResults
import Testing

@Suite("Spaced reordering")
struct SpacedReorderTests {
    /// A model list of `n` rows (each row's identity is its index in `ids`) moved by the spaced
    /// plan: returns whether the order by position equals the model order after every move,
    /// and the writes of each move.
    static func run(positions start: [Int64], moves: [(Int, Int)]) -> (ordered: Bool, distinct: Bool, writes: [Int]) {
        // rows[i]: the row at index i of the list, as (identity, position).
        var rows = start.enumerated().map { (id: $0.offset, position: $0.element) }
        var model = rows.map(\.id)
        var ordered = true, distinct = true, writes: [Int] = []
        for (from, to) in moves {
            let plan = PositionRenumbering.spacedWrites(movingFrom: from, to: to, count: rows.count) { rows[$0].position }
            writes.append(plan.count)
            for write in plan { rows[write.index].position = write.position }
            rows.sort { $0.position < $1.position }
            model.insert(model.remove(at: from), at: to)
            if rows.map(\.id) != model { ordered = false }
            if Set(rows.map(\.position)).count != rows.count { distinct = false }
        }
        return (ordered, distinct, writes)
    }

    @Test func roomBetweenNeighboursCostsOneWrite() {
        let s = PositionRenumbering.spacing
        let positions: [Int64] = [0, s, 2 * s, 3 * s]
        #expect(PositionRenumbering.spacedWrites(movingFrom: 3, to: 1, count: 4) { positions[$0] } == [.init(index: 3, position: s / 2)])
        #expect(PositionRenumbering.spacedWrites(movingFrom: 1, to: 0, count: 4) { positions[$0] } == [.init(index: 1, position: -s)])
        #expect(PositionRenumbering.spacedWrites(movingFrom: 0, to: 3, count: 4) { positions[$0] } == [.init(index: 0, position: 4 * s)])
        #expect(PositionRenumbering.spacedWrites(movingFrom: 2, to: 2, count: 4) { positions[$0] } == [])
    }

    /// The plan reads only the rows around the move, not the list.
    @Test func aMoveReadsOnlyItsNeighbours() {
        var reads = 0
        let writes = PositionRenumbering.spacedWrites(movingFrom: 90_000, to: 10, count: 100_000) { index in
            reads += 1
            return Int64(index) * PositionRenumbering.spacing
        }
        #expect(writes.count == 1)
        #expect(reads <= 4, "\(reads) positions read for one move")
    }

    /// Moving rows into the same gap again and again runs it out; the neighbourhood around it
    /// is spread, the order stays the model's, and the writes stay far below the list's size.
    @Test func crowdedGapRenumbersANeighbourhoodAndKeepsOrder() {
        let n = 1_000
        let start = (0..<n).map { Int64($0) * PositionRenumbering.spacing }
        // Always move the last row to index 500: the gap before row 500 halves each time.
        let (ordered, distinct, writes) = Self.run(positions: start, moves: Array(repeating: (n - 1, 500), count: 200))
        #expect(ordered)
        #expect(distinct)
        #expect(writes.prefix(15).allSatisfy { $0 == 1 })
        let renumberings = writes.filter { $0 > 1 }
        #expect(!renumberings.isEmpty, "the gap never ran out")
        let largest = renumberings.max() ?? 0
        #expect(largest < n / 2, "a neighbourhood, not the list: \(largest) writes")
        let total = writes.reduce(0, +)
        #expect(total < 4 * writes.count, "\(total) writes for \(writes.count) moves")
    }

    /// A dense list (0, 1, 2, …) is spread out once; moves after that cost one write.
    @Test func denseListIsRenumberedOnceThenMovesCostOne() {
        let n = 500
        var random = SplitMix64(seed: 7)
        let moves = (0..<300).map { _ in (Int(random.next() % UInt64(n)), Int(random.next() % UInt64(n))) }.filter { $0.0 != $0.1 }
        let (ordered, distinct, writes) = Self.run(positions: (0..<n).map(Int64.init), moves: moves)
        #expect(ordered)
        #expect(distinct)
        let first = writes[0]
        #expect(first > 1, "the first move spreads the dense list")
        let later = writes.dropFirst()
        let renumbered = later.filter { $0 > 1 }.count
        #expect(renumbered <= later.count / 20, "\(renumbered) of \(later.count) later moves renumbered")
    }

    /// Many random moves of a spaced list: the order equals the model order after each, and
    /// writes stay ≤ 1.1 per move.
    @Test(arguments: [1, 2, 3])
    func randomMovesKeepTheModelOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let n = 2 + Int(random.next() % 400)
        let moves = (0..<3_000).map { _ in (Int(random.next() % UInt64(n)), Int(random.next() % UInt64(n))) }
        let (ordered, distinct, writes) = Self.run(positions: (0..<n).map { Int64($0) * PositionRenumbering.spacing }, moves: moves)
        #expect(ordered, "seed \(seed), \(n) rows")
        #expect(distinct, "seed \(seed)")
        let real = moves.filter { $0.0 != $0.1 }.count
        let total = writes.reduce(0, +)
        #expect(Double(total) <= 1.1 * Double(real), "seed \(seed): \(total) writes for \(real) moves")
    }

    /// Positions at the ends of Int64 do not overflow: rows are renumbered instead.
    @Test func extremePositionsRenumberInsteadOfOverflowing() {
        let positions: [Int64] = [Int64.min + 1, Int64.min + 2, Int64.max - 1, Int64.max]
        let (ordered, distinct, writes) = Self.run(positions: positions, moves: [(3, 0), (0, 3), (1, 2), (3, 0), (2, 3)])
        #expect(ordered)
        #expect(distinct)
        #expect(writes[0] > 1, "no room past the start: rows are renumbered")
    }

    /// Through a controller on a real store: each move writes one row in the common case,
    /// nothing is reported, and the controller, the saved order and the model agree.
    @Test func controllerMovesWriteOneRowAndMatchAFreshFetch() async throws {
        let directory = TemporaryDirectory()
        let coordinator = try await makeCoordinator(directory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let n = 300, moves = 400
        let (expected, written) = try context.performAndWait { () throws -> ([ObjectID], [Int]) in
            var last: Int64?
            for i in 0..<n {
                let row = context.insert(Row.self)
                row.title = "r\(i)"
                row.position = PositionRenumbering.position(after: last)
                last = row.position
            }
            try context.save()
            let request = FetchRequest<Row>(sortKeys: [SortKey("position")])
            let controller = try FetchedResultsController(fetchRequest: request, context: context)
            let recorder = Recorder()
            controller.delegate = recorder
            try controller.performFetch()
            var expected = controller.snapshot.itemIdentifiers
            var random = SplitMix64(seed: 11)
            var written: [Int] = []
            for _ in 0..<moves {
                let from = Int(random.next() % UInt64(n)), to = Int(random.next() % UInt64(n))
                guard from != to else { continue }
                let updatedBefore = context.updatedObjects.count
                try controller.performManualReorder {
                    written.append(try controller.moveObject(from: FetchedIndexPath(section: 0, row: from),
                                                             to: FetchedIndexPath(section: 0, row: to), positionKey: "position"))
                    #expect(context.updatedObjects.count - updatedBefore == written.last, "rows changed = writes counted")
                    try context.save()
                }
                expected.insert(expected.remove(at: from), at: to)
            }
            #expect(recorder.calls == 0)
            #expect(controller.snapshot.itemIdentifiers == expected)
            #expect(try context.fetchObjectIDs(request) == expected, "the controller equals a fresh fetch")
            return (expected, written)
        }
        let ones = written.filter { $0 == 1 }.count, total = written.reduce(0, +)
        #expect(ones >= written.count * 9 / 10, "common case one write: \(ones) of \(written.count)")
        #expect(Double(total) <= 1.1 * Double(written.count), "\(total) writes for \(written.count) moves")
        let saved = try ReorderTests.savedOrder(coordinator)
        #expect(saved.ids == expected)
        #expect(saved.distinct)
    }
}

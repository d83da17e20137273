import Foundation
import Testing
@testable import Strata

/// `FetchEvaluator.sort` orders items exactly as `compare` does, on its integer fast path (one
/// integer sort key) and off it.
@Suite struct FetchEvaluatorSortTests {
    @Test(arguments: [true, false])
    func sortingAgreesWithComparison(ascending: Bool) throws {
        let note = try #require(testModel.entity(named: "Note"))
        let byRating = try FetchRequest<Note>(sortKeys: [SortKey("rating", ascending: ascending)]).evaluator(for: testModel)
        let byTitleThenRating = try FetchRequest<Note>(sortKeys: [SortKey("title", ascending: ascending), SortKey("rating")]).evaluator(for: testModel)
        for seed in SeededRandom.seeds([1, 2, 3]) {
            var random = SeededRandom(seed: seed)
            // Few distinct values, so ties fall to the IDs: permanent and temporary ones mixed.
            var items: [(id: ObjectID, values: [PropertyValue])] = (0..<300).map { _ in
                let id = ObjectID(entity: note, key: Int64.random(in: 1...50, using: &random), isTemporary: random.chance(0.3))
                return (id, [.integer(Int64.random(in: -5...5, using: &random))])
            }
            var expected = items
            expected.sort { byRating.compare($0.values, $0.id, $1.values, $1.id) < 0 }
            let comparisons = byRating.sort(&items, values: \.values, id: \.id)
            #expect(comparisons > 0)
            #expect(items.map(\.id) == expected.map(\.id), "seed \(seed)")
            #expect(items.map(\.values) == expected.map(\.values), "seed \(seed)")

            // A value that is not an integer (nil) and two keys take the general path.
            items[0].values = [.null]
            expected = items
            expected.sort { byRating.compare($0.values, $0.id, $1.values, $1.id) < 0 }
            byRating.sort(&items, values: \.values, id: \.id)
            #expect(items.map(\.id) == expected.map(\.id), "seed \(seed)")
            var pairs = items.map { (id: $0.id, values: [PropertyValue.string(random.pick(["a", "b"])), $0.values[0]]) }
            var sortedPairs = pairs
            sortedPairs.sort { byTitleThenRating.compare($0.values, $0.id, $1.values, $1.id) < 0 }
            byTitleThenRating.sort(&pairs, values: \.values, id: \.id)
            #expect(pairs.map(\.id) == sortedPairs.map(\.id), "seed \(seed)")
        }
    }
}

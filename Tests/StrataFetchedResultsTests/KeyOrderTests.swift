import Strata
import Testing
@testable import StrataFetchedResults

/// `KeyOrder` puts IDs in primary-key order when their keys are dense, and otherwise leaves
/// them as they came.
@Suite struct KeyOrderTests {
    private static func ids(_ keys: [Int64], of entity: EntityDescription) -> [ObjectID] {
        keys.map { ObjectID(entity: entity, primaryKey: $0) }
    }

    @Test func denseKeysComeOutInKeyOrder() throws {
        let row = try #require(rowModel.entity(named: "Row"))
        let scrambled = Self.ids([7, 3, 9, 4, 5, 8, 6, 12], of: row)
        #expect(KeyOrder.ordered(scrambled) { $0 }.compactMap(\.primaryKey) == [3, 4, 5, 6, 7, 8, 9, 12])
    }

    @Test func otherListsAreLeftAsTheyCame() throws {
        let row = try #require(rowModel.entity(named: "Row"))
        let list = try #require(rowModel.entity(named: "RowList"))
        let sparse = Self.ids([900, 3, 5], of: row)   // a span over four times their number
        #expect(KeyOrder.ordered(sparse) { $0 } == sparse)
        let twoEntities = Self.ids([2, 1], of: row) + Self.ids([3], of: list)
        #expect(KeyOrder.ordered(twoEntities) { $0 } == twoEntities)
        let twice = Self.ids([2, 1, 2], of: row)
        #expect(KeyOrder.ordered(twice) { $0 } == twice)
        let extremes = Self.ids([.max, .min], of: row)   // the span overflows
        #expect(KeyOrder.ordered(extremes) { $0 } == extremes)
    }
}

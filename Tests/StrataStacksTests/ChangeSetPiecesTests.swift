import Foundation
@testable import Strata
@testable import StrataStacks
import Testing

/// Large change sets reach the main context in pieces (`ChangeSet.pieces(of:)`).
@Suite struct ChangeSetPiecesTests {
    static func ids(_ entity: EntityDescription, _ range: Range<Int64>) -> [ObjectID] { range.map { ObjectID(entity: entity, primaryKey: $0) } }

    @Test func piecesHoldEveryChangeOnceAndNoneHoldsMoreThanTheLimit() throws {
        let model = try ObjectModel(entities: [EntityDescription("Item", attributes: [AttributeDescription("n", type: .int64)])])
        let entity = try #require(model.entity(named: "Item"))
        var changes = ChangeSet(inserted: Set(Self.ids(entity, 1..<2_001)), deleted: Set(Self.ids(entity, 3_001..<3_300)))
        for id in Self.ids(entity, 2_001..<2_501) { changes.updated[id] = ["n": .integer(id.primaryKey!)]; changes.versions[id] = 7 }
        changes.permanentIDs = [ObjectID(entity: entity, primaryKey: 9_999): ObjectID(entity: entity, primaryKey: 10_000)]
        let pieces = changes.pieces(of: 1_000)
        #expect(pieces.count == 3)
        #expect(pieces.allSatisfy { $0.inserted.count + $0.updated.count + $0.deleted.count <= 1_000 })
        var whole = ChangeSet()
        for piece in pieces {
            #expect(whole.inserted.isDisjoint(with: piece.inserted))
            whole.inserted.formUnion(piece.inserted)
            whole.deleted.formUnion(piece.deleted)
            whole.updated.merge(piece.updated) { first, _ in first }
            whole.versions.merge(piece.versions) { first, _ in first }
        }
        #expect(whole.inserted == changes.inserted && whole.deleted == changes.deleted)
        #expect(whole.updated == changes.updated && whole.versions == changes.versions)
        #expect(pieces[0].permanentIDs == changes.permanentIDs && pieces.dropFirst().allSatisfy { $0.permanentIDs.isEmpty })
    }

    /// Inserts go in row order (entity, then key), so a list sorted by something that grows
    /// with the rows appends each piece's objects after the last piece's.
    @Test func insertsGoInTheOrderOfTheirRows() throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Item", attributes: [AttributeDescription("n", type: .int64)]),
            EntityDescription("Other", attributes: [AttributeDescription("n", type: .int64)]),
        ])
        let item = try #require(model.entity(named: "Item"))
        let other = try #require(model.entity(named: "Other"))
        let changes = ChangeSet(inserted: Set(Self.ids(other, 1..<501) + Self.ids(item, 1..<2_501)))
        let pieces = changes.pieces(of: 1_000)
        #expect(pieces.count == 3)
        let keys = pieces.map { piece in piece.inserted.map { ($0.entity.index, $0.primaryKey!) }.sorted { $0 < $1 } }
        let expected: [[(Int, Int64)]] = [
            (1..<1_001).map { (item.index, Int64($0)) },
            (1_001..<2_001).map { (item.index, Int64($0)) },
            (2_001..<2_501).map { (item.index, Int64($0)) } + (1..<501).map { (other.index, Int64($0)) },
        ]
        #expect(keys.count == expected.count)
        for (got, want) in zip(keys, expected) { #expect(got.elementsEqual(want) { $0 == $1 }) }
    }

    @Test func aSmallChangeSetStaysWhole() throws {
        let model = try ObjectModel(entities: [EntityDescription("Item", attributes: [AttributeDescription("n", type: .int64)])])
        let entity = try #require(model.entity(named: "Item"))
        let changes = ChangeSet(inserted: Set(Self.ids(entity, 1..<11)))
        #expect(changes.pieces(of: 1_000) == [changes])
    }
}

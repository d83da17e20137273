import Testing
@testable import Strata

/// `PropertyMask`'s shortcuts for the common one- and two-property edits.
@Suite struct PropertyMaskTests {
    @Test func onlyMemberAndOnlyPairNameExactlyTheirPositions() {
        var mask = PropertyMask()
        #expect(mask.onlyMember == nil && mask.onlyPair == nil)
        mask.insert(5)
        #expect(mask.onlyMember == 5 && mask.onlyPair == nil)
        mask.insert(63)
        #expect(mask.onlyMember == nil)
        #expect(mask.onlyPair.map { [$0.0, $0.1] } == [5, 63])
        mask.insert(0)
        #expect(mask.onlyPair == nil)   // three
        var far = PropertyMask()
        far.insert(1)
        far.insert(70)   // beyond the first word
        #expect(far.onlyPair == nil && far.onlyMember == nil)
    }

    /// A union holds every position of both masks, beyond the first word too (an object taking
    /// a push's values made ahead adds their slots this way).
    @Test func aUnionHoldsEveryPositionOfBoth() {
        var mask = PropertyMask()
        mask.insert(3)
        var other = PropertyMask()
        other.insert(5)
        other.insert(130)   // the third word
        mask.formUnion(other)
        #expect((0..<200).filter(mask.contains) == [3, 5, 130])
        var wide = PropertyMask()
        wide.insert(70)
        wide.insert(200)
        mask.formUnion(wide)
        #expect((0..<256).filter(mask.contains) == [3, 5, 70, 130, 200])
    }

    /// A two-attribute change reports both keys with their values (the literal path).
    @Test func aTwoAttributeChangeNamesBothKeys() throws {
        let model = try ObjectModel(entities: [EntityDescription("Item", attributes: [
            AttributeDescription("a", type: .int64), AttributeDescription("b", type: .string), AttributeDescription("c", type: .int64),
        ])])
        let entity = try #require(model.entity(named: "Item"))
        var changed = PropertyMask()
        changed.insert(0)
        changed.insert(2)
        let change = ObjectChange(id: ObjectID(entity: entity, primaryKey: 1), version: 1, values: [.integer(1), .string("x"), .integer(3)], originalValues: nil,
                                  changedAttributes: changed, relations: [])
        #expect(change.changedValues == ["a": .integer(1), "c": .integer(3)])
    }
}

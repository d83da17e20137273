/// One relationship of an ``ObjectChange``: a to-one's new target, or a to-many's new
/// members and those it had before.
///
/// For example:
/// ```swift
/// if let relation = change.relation(at: 0) { print(relation.added, relation.removed) }
/// ```
public struct RelationChange: Sendable {
    /// What changed.
    public enum Kind: Sendable {
        /// A to-one now pointing at `target`; `original` is what it pointed at before (`nil`
        /// for an insert, `.some(nil)` when it pointed at nothing).
        case toOne(target: ObjectID?, original: ObjectID??)
        /// A to-many now holding `members` (in order, for an ordered relationship); `original`
        /// is what it held as last saved or fetched (`nil` for an insert, or when it was not
        /// read before it changed).
        case toMany(members: [ObjectID], original: [ObjectID]?)
    }

    /// The relationship's position in `entity.relationships`.
    public let slot: Int
    /// What changed.
    public let kind: Kind

    /// Creates a relationship change.
    public init(slot: Int, kind: Kind) {
        self.slot = slot
        self.kind = kind
    }

    /// The value after the change, as change sets report it.
    public var value: PropertyValue {
        switch kind {
        case .toOne(let target, _): target.map(PropertyValue.objectID) ?? .null
        case .toMany(let members, _): .objectIDs(members)
        }
    }

    /// The to-many members gained (every member for an insert); empty for a to-one.
    public var added: [ObjectID] {
        guard case .toMany(let members, let original) = kind else { return [] }
        guard let original, !original.isEmpty else { return members }
        let before = Set(original)
        return members.filter { !before.contains($0) }
    }

    /// The to-many members lost; empty for a to-one.
    public var removed: [ObjectID] {
        guard case .toMany(let members, let original?) = kind, !original.isEmpty else { return [] }
        let now = Set(members)
        return original.filter { !now.contains($0) }
    }

    /// The value before the change (`.null` when unknown).
    public var originalValue: PropertyValue {
        switch kind {
        case .toOne(_, let original): (original ?? nil).map(PropertyValue.objectID) ?? .null
        case .toMany(_, let original): original.map(PropertyValue.objectIDs) ?? .null
        }
    }

    /// The to-one target, or `nil` for a to-many.
    var toOneTarget: ObjectID?? {
        if case .toOne(let target, _) = kind { return .some(target) }
        return nil
    }
}

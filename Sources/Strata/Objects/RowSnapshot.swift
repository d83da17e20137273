/// One object's stored state, as a row read from SQLite or as a parent context currently
/// holds it (unsaved changes included). `Sendable`, so a parent can hand it to a child.
///
/// Its relationship states are kept in the form an object holds them, so that an object
/// made from a row takes the snapshot's array instead of converting it (one allocation and
/// one pass less per object read).
struct RowSnapshot: @unchecked Sendable {  // safe: `relationValues` holds only `.unloaded` and `.toOneID` (IDs, which are Sendable): `init` checks it in debug builds, and it is only ever replaced by an empty array
    var id: ObjectID
    var version: Int64
    var attributes: [PropertyValue]
    /// Per relationship: `.toOneID` for a to-one the snapshot knows, `.unloaded` for the rest
    /// (to-manys, and to-ones stored on the other side).
    var relationValues: [RelationValue]
    /// Attributes whose stored bytes did not decode.
    var errors: [Int: StrataError]

    init(id: ObjectID, version: Int64, attributes: [PropertyValue], relationValues: [RelationValue], errors: [Int: StrataError]) {
        assert(relationValues.allSatisfy(\.isSnapshotState), "a snapshot holds IDs only")
        self.id = id
        self.version = version
        self.attributes = attributes
        self.relationValues = relationValues
        self.errors = errors
    }

    /// The primary key (for rows read from the store).
    var key: Int64 { id.key }

    /// The to-one destination the snapshot knows for relationship `index`: `.some(nil)` for
    /// a to-one that points at nothing, nil when the snapshot does not hold the relationship.
    func toOneTarget(_ index: Int) -> ObjectID?? {
        if case .toOneID(let target) = relationValues[index] { return .some(target) }
        return nil
    }
}

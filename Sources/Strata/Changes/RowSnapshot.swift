/// One object's stored state, as a row read from SQLite or as a parent context currently
/// holds it (unsaved changes included). `Sendable`, so a parent can hand it to a child.
struct RowSnapshot: Sendable {
    /// How a snapshot knows a relationship.
    enum Relation: Sendable {
        /// Not part of the snapshot (to-many, or a to-one stored on the other side).
        case unloaded
        /// A to-one's destination.
        case toOne(ObjectID?)
    }

    var id: ObjectID
    var version: Int64
    var attributes: [PropertyValue]
    var relations: [Relation]
    /// Attributes whose stored bytes did not decode.
    var errors: [Int: StrataError]

    /// The primary key (for rows read from the store).
    var key: Int64 { id.key }
}

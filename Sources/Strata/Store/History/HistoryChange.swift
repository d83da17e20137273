/// One object changed by a ``HistoryTransaction``.
///
/// Updates list the keys written (attributes and to-one relationships by name); many-to-many
/// relationships (stored in join tables) list their members added and removed, because no
/// to-one on the other side records them. Deleted objects keep the values of their unique
/// attributes (a tombstone), so a reader can tell which object went after its row is gone.
///
/// For example:
/// ```swift
/// if change.operation == .delete { print(change.tombstone["uniqueIdentifier"] ?? .null) }
/// ```
public struct HistoryChange: Sendable {
    /// What happened to the object.
    public enum Operation: Int, Sendable {
        case insert = 1
        case update = 2
        case delete = 3
    }

    /// The object (permanent).
    public let objectID: ObjectID
    /// What happened to it.
    public let operation: Operation
    /// For an update, the keys written; empty for an insert (every key) and a delete.
    public let updatedKeys: Set<String>
    /// Many-to-many members gained, by relationship name.
    public let addedMembers: [String: [ObjectID]]
    /// Many-to-many members lost, by relationship name.
    public let removedMembers: [String: [ObjectID]]
    /// For a delete from a context's save, the deleted object's unique attributes.
    public let tombstone: [String: PropertyValue]
}

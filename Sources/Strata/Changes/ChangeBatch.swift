/// One save's changes as values: what every layer that moves changes hands on.
///
/// A context's change tracker builds it from the objects when it saves. A root context hands
/// it to its coordinator, which writes it in one transaction and answers by ``ObjectID``; a
/// child context hands it to its parent, which applies it as its own edits; will-save
/// observers receive it before either happens. It holds IDs and values only, never a
/// ``ManagedObject``, so it is `Sendable` and can be kept (sync records it as history).
///
/// For example:
/// ```swift
/// let token = context.observeWillSave { batch in
///     for change in batch.updated { print(change.id, change.changedKeys) }
/// }
/// ```
public struct ChangeBatch: Sendable {
    /// New objects, with every attribute and relationship (under their temporary IDs, unless
    /// ``ObjectContext/obtainPermanentIDs(for:)`` gave them permanent ones).
    public var inserted: [ObjectChange]
    /// Saved objects with their net changes (a key changed and changed back is not listed).
    public var updated: [ObjectChange]
    /// Deleted objects, with the values they had as last saved or fetched.
    public var deleted: [ObjectDeletion]

    /// Creates a batch.
    public init(inserted: [ObjectChange] = [], updated: [ObjectChange] = [], deleted: [ObjectDeletion] = []) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }

    /// Whether the batch changes nothing.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// How many objects the batch inserts, updates and deletes.
    var changeCount: Int { inserted.count + updated.count + deleted.count }
}

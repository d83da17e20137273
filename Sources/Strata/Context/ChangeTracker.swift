import OrderedCollections

/// A context's unsaved changes: the objects inserted, updated and deleted since the last save,
/// in the order they first changed (the order a save writes and reports them in).
///
/// Queue-confined to its context. A part of ``ObjectContext``: the context's setters, deletes,
/// merges and saves decide what is pending; the tracker keeps the three sets consistent.
///
/// For example (inside the engine):
/// ```swift
/// changes.inserted.append(object)
/// if changes.isEmpty { /* nothing to save */ }
/// ```
struct ChangeTracker {
    /// Objects inserted since the last save.
    var inserted: OrderedSet<ManagedObject> = []
    /// Saved objects changed since the last save.
    var updated: OrderedSet<ManagedObject> = []
    /// Objects deleted since the last save.
    var deleted: OrderedSet<ManagedObject> = []

    /// Whether nothing is pending.
    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    /// Every pending object: inserted, then updated, then deleted.
    var all: [ManagedObject] { Array(inserted) + Array(updated) + Array(deleted) }

    /// Takes `object` out of every set (it left the context).
    mutating func forget(_ object: ManagedObject) {
        inserted.remove(object)
        updated.remove(object)
        deleted.remove(object)
    }

    /// Empties the three sets (after a save, a rollback or a reset).
    mutating func removeAll() {
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
    }
}

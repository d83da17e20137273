/// What one save (or merge, or batch request) changed, by object ID: `Sendable`, so it can
/// travel to other contexts, threads and observers.
///
/// For updates it carries the changed keys with their new values; relationships appear as
/// `.objectID` / `.objectIDs`.
///
/// For example:
/// ```swift
/// for await changes in context.changeSets() {
///     print(changes.inserted.count, changes.updated.keys, changes.deleted)
/// }
/// ```
public struct ChangeSet: Sendable, Hashable, CustomStringConvertible {
    /// Objects inserted (by their IDs after the save: permanent for a store save).
    public var inserted: Set<ObjectID>
    /// Objects updated, with each changed key's new value.
    public var updated: [ObjectID: [String: PropertyValue]]
    /// Objects deleted.
    public var deleted: Set<ObjectID>
    /// For a save to the store: the temporary ID each inserted object had, mapped to its permanent one.
    public var permanentIDs: [ObjectID: ObjectID]
    /// Row versions after the change, for objects written to the store (inserted rows that
    /// are not listed have version 1).
    public var versions: [ObjectID: Int64]
    /// `true` for the report of ``ObjectContext/processPendingChanges()``: edits not saved
    /// anywhere yet. ``ObjectContext/merge(_:)`` ignores such a change set (its values would
    /// leak unsaved edits into another context); observers use it to update a display.
    ///
    /// For example:
    /// ```swift
    /// let token = context.observeChanges { changes in
    ///     guard !changes.isUnsaved else { return }   // forward saves only
    ///     Task { try await other.perform { other.merge(changes) } }
    /// }
    /// ```
    public internal(set) var isUnsaved = false
    /// The inserts of the store saves this change set reports (one per save; several after
    /// ``merging(_:)``), from which a context merging it fills its faults of the new objects
    /// instead of reading SQLite (see ``savedSnapshot(of:)``). Not part of equality.
    var savedInserts: [SavedInserts] = []
    /// The numbers of the store commits the change set reports, among this process's commits
    /// to the file (``StoreFileCommits``); `nil` for a change set made otherwise. A context uses
    /// a change set's ``savedInserts`` only when it merged no later commit before it. Not part
    /// of equality.
    var commits: ClosedRange<UInt64>?

    /// Creates a change set.
    public init(inserted: Set<ObjectID> = [], updated: [ObjectID: [String: PropertyValue]] = [:], deleted: Set<ObjectID> = [],
                permanentIDs: [ObjectID: ObjectID] = [:], versions: [ObjectID: Int64] = [:]) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.permanentIDs = permanentIDs
        self.versions = versions
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }

    /// Every object the change set touches.
    public var allObjectIDs: Set<ObjectID> { inserted.union(updated.keys).union(deleted) }

    /// Change sets are equal when they report the same changes (the rows they carry for
    /// merging are not compared).
    public static func == (lhs: ChangeSet, rhs: ChangeSet) -> Bool {
        lhs.inserted == rhs.inserted && lhs.updated == rhs.updated && lhs.deleted == rhs.deleted
            && lhs.permanentIDs == rhs.permanentIDs && lhs.versions == rhs.versions && lhs.isUnsaved == rhs.isUnsaved
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(inserted)
        hasher.combine(updated)
        hasher.combine(deleted)
        hasher.combine(permanentIDs)
        hasher.combine(versions)
        hasher.combine(isUnsaved)
    }

    public var description: String {
        "ChangeSet(inserted: \(inserted.count), updated: \(updated.count), deleted: \(deleted.count))"
    }
}

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
    public var updated: [ObjectID: [String: PropertyValue]] {
        didSet { updatedKeys = nil }   // (no `oldValue`: the dictionary is still changed in place)
    }
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
    /// Every key some update in ``updated`` changes, when whoever made the change set summed
    /// them up (a store save does, on the saving queue, and a child's push:
    /// ``summariseUpdatedKeys()``, ``summariseUpdatedKeys(of:)``); `nil` otherwise, and after
    /// any change to ``updated``. It may hold more keys than the updates
    /// name (a piece keeps its whole set's), never fewer: a reader may pass over every update
    /// when none of the keys it reads is here. Not part of equality.
    package internal(set) var updatedKeys: Set<String>?

    /// Creates a change set.
    public init(inserted: Set<ObjectID> = [], updated: [ObjectID: [String: PropertyValue]] = [:], deleted: Set<ObjectID> = [],
                permanentIDs: [ObjectID: ObjectID] = [:], versions: [ObjectID: Int64] = [:]) {
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
        self.permanentIDs = permanentIDs
        self.versions = versions
    }

    /// Sums up ``updatedKeys`` from ``updated`` (one pass; a run of updates of the same one
    /// key, as an import's second pass makes, costs a comparison each).
    mutating func summariseUpdatedKeys() {
        var keys = Set<String>()
        var lastSingleKey: String?
        for values in updated.values {
            if values.count == 1, let key = values.keys.first {
                if key == lastSingleKey { continue }
                lastSingleKey = key
                keys.insert(key)
            } else {
                keys.formUnion(values.keys)
            }
        }
        updatedKeys = keys
    }

    /// Sums up ``updatedKeys`` from the change batch's updates `changes` that ``updated``
    /// lists (all of them or some: more keys are allowed), by their changed attributes and
    /// relationships: a run of changes of the same attributes of one entity, as an editor's
    /// commit makes, adds its names once.
    mutating func summariseUpdatedKeys(of changes: [ObjectChange]) {
        var keys = Set<String>()
        // (The shape includes the values' count: the keys are the changed slots below it.)
        var lastShape: ObjectChange.AttributeShape?
        for change in changes {
            let entity = change.id.entity
            let shape = change.attributeShape
            if lastShape != shape {
                lastShape = shape
                for slot in change.values.indices where change.changesAttribute(at: slot) { keys.insert(entity.attributes[slot].name) }
            }
            for relation in change.relations { keys.insert(entity.relationships[relation.slot].name) }
        }
        updatedKeys = keys
    }

    /// Takes `other`'s ``updatedKeys``: for a set whose updates are some of `other`'s, by the
    /// same keys (a parent's report of a child's push).
    mutating func takeUpdatedKeys(of other: ChangeSet) { updatedKeys = other.updatedKeys }

    /// Whether ``updatedKeys`` is known and names none of `keys`: then no update changes any
    /// of them. `false` when nobody summed the keys up.
    ///
    /// For example (a list that reads `title` and `position`):
    /// ```swift
    /// if changes.updatesNameNone(of: ["title", "position"]) { /* no update moves a row */ }
    /// ```
    package func updatesNameNone(of keys: [String]) -> Bool {
        guard let updatedKeys else { return false }
        return keys.allSatisfy { !updatedKeys.contains($0) }
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

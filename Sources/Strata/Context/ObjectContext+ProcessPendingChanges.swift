extension ObjectContext {
    /// Tells this context's change observers about the unsaved changes made in the context
    /// since the last call (or since they were saved): Core Data's `processPendingChanges` and
    /// `objectsDidChange`. Observers receive a ``ChangeSet`` whose IDs are the objects' current
    /// (possibly temporary) IDs; updated entries carry the keys whose values changed since the
    /// last call, with their current values. Nothing is published when nothing changed.
    ///
    /// Objects that stopped being pending without a save (``rollback()``, an undone edit) are
    /// reported as updated (or deleted, for rolled-back inserts); saved ones are not reported
    /// again, since the save's change set already told the observers. Once a context has
    /// processed pending changes, each later save or merge of it is followed by one more
    /// processing, so that edits reported here and then undone before the save (which the
    /// save's change set does not mention) are reported too, and ``save()`` processes pending
    /// changes first, as Core Data's does. Children are not told: unsaved
    /// changes stay in this context.
    ///
    /// For example:
    /// ```swift
    /// note.title = "Draft"
    /// context.processPendingChanges()   // a fetched results controller on `context` reports the update now
    /// ```
    public func processPendingChanges() {
        checkQueue()
        undoHistory?.closeImplicitGroup()
        let tracker = pendingChangeTracker ?? PendingChangeTracker.start(for: self)
        var changes = tracker.process(self)
        guard !changes.isEmpty else { return }
        changes.isUnsaved = true
        tracker.isPublishing = true
        defer { tracker.isPublishing = false }
        observers.publish(changes)
    }
}

extension ObjectContext {
    /// Called first thing by ``save()``, as Core Data's save processes pending changes: for a
    /// context that has processed pending changes before, reports what changed since (e.g. an
    /// object inserted, reported, then deleted: the save itself has nothing to say about it).
    func processPendingChangesIfTracked() {
        guard pendingChangeTracker != nil else { return }
        processPendingChanges()
    }
}

/// What ``ObjectContext/processPendingChanges()`` last reported for one context. Touched only
/// on that context's queue.
final class PendingChangeTracker: @unchecked Sendable {  // safe: used only on its context's queue
    enum Kind { case inserted, updated, deleted }
    struct Seen {
        let object: ManagedObject
        let kind: Kind
        let values: [String: PropertyValue]
    }

    private var seen: [ObjectIdentifier: Seen] = [:]

    /// Makes `context`'s tracker on its first ``ObjectContext/processPendingChanges()`` and
    /// keeps it in the context, which from then on reports after each save or merge what the
    /// save's change set cannot know about.
    static func start(for context: ObjectContext) -> PendingChangeTracker {
        let tracker = PendingChangeTracker()
        context.pendingChangeTracker = tracker
        tracker.followUp = context.observers.addChangeHandler { [weak tracker, weak context] _ in
            guard let tracker, let context, !tracker.isProcessing, !tracker.isPublishing else { return }
            let changes = tracker.process(context)
            if !changes.isEmpty { context.observers.publish(changes) }
        }
        return tracker
    }

    private var followUp: ChangeObservation?
    private var isProcessing = false
    fileprivate var isPublishing = false

    /// All current values of an object (attributes and relationships).
    private static func allValues(_ object: ManagedObject) -> [String: PropertyValue] {
        var result: [String: PropertyValue] = [:]
        for (i, attribute) in object.entity.attributes.enumerated() where i < object.attributeValues.count { result[attribute.name] = object.attributeValues[i] }
        for (i, relationship) in object.entity.relationships.enumerated() where i < object.relationValues.count {
            result[relationship.name] = object.relationValues[i].propertyValue
        }
        return result
    }

    /// The changes since the last call; remembers the current pending state.
    func process(_ context: ObjectContext) -> ChangeSet {
        isProcessing = true
        defer { isProcessing = false }
        var current: [ObjectIdentifier: Seen] = [:]
        for object in context.pending.inserted { current[ObjectIdentifier(object)] = Seen(object: object, kind: .inserted, values: Self.allValues(object)) }
        for object in context.pending.updated { current[ObjectIdentifier(object)] = Seen(object: object, kind: .updated, values: object.changedValues()) }
        for object in context.pending.deleted { current[ObjectIdentifier(object)] = Seen(object: object, kind: .deleted, values: [:]) }
        var changes = ChangeSet()
        for (key, now) in current {
            let id = now.object.objectID
            guard let before = seen[key] else {
                switch now.kind {
                case .inserted: changes.inserted.insert(id)
                case .updated: changes.updated[id] = now.values
                case .deleted: changes.deleted.insert(id)
                }
                continue
            }
            if now.kind == .deleted {
                if before.kind != .deleted { changes.deleted.insert(id) }
                continue
            }
            if before.kind == .deleted {
                changes.inserted.insert(id)
                continue
            }
            var differing: [String: PropertyValue] = [:]
            for (name, value) in now.values where before.values[name] != value { differing[name] = value }
            for name in before.values.keys where now.values[name] == nil { differing[name] = now.object.primitiveValue(forKey: name) }
            if !differing.isEmpty { changes.updated[id] = differing }
        }
        for (key, before) in seen where current[key] == nil {
            let object = before.object
            let id = object.objectID
            let gone = object.lifecycle.isDeleted || context.registry[id] !== object
            if gone {
                if before.kind != .deleted { changes.deleted.insert(id) }
                continue
            }
            if before.kind == .deleted { changes.inserted.insert(id); continue }
            // Saved objects keep the values last reported; reverted ones report what they are now.
            var reverted: [String: PropertyValue] = [:]
            for (name, value) in before.values {
                let now = object.primitiveValue(forKey: name)
                if now != value { reverted[name] = now }
            }
            if !reverted.isEmpty { changes.updated[id] = reverted }
        }
        seen = current
        return changes
    }
}

extension ObjectContext {
    /// The context's undo history, or `nil` (the default: nothing is recorded, as in Core
    /// Data). Set it on the context's queue; see ``ContextUndoManager`` for what a group holds.
    ///
    /// For example:
    /// ```swift
    /// context.undoManager = ContextUndoManager(levelsOfUndo: 20)
    /// note.title = "Draft"
    /// context.undo()   // the title is back
    /// ```
    public var undoManager: ContextUndoManager? {
        get {
            checkQueue()
            return undoHistory
        }
        set {
            checkQueue()
            undoHistory = newValue
            let records = newValue != nil
            for object in registry.all { object.lifecycle.recordsUndo = records }
        }
    }

    /// Undoes the last group of changes (closing any group still open first): every object it
    /// touched gets back its values, relationships and presence from before the group. Then,
    /// for a context that processes pending changes, its observers are told.
    ///
    /// For example:
    /// ```swift
    /// context.delete(note)
    /// context.undo()
    /// note.isDeleted   // false
    /// ```
    public func undo() {
        checkQueue()
        guard let history = undoHistory else { return }
        history.closeEveryGroup()
        guard let group = history.undoStack.popLast() else { return }
        history.redoStack.append(applyUndoGroup(group))
        processPendingChangesIfTracked()
    }

    /// Redoes the last undone group.
    ///
    /// For example:
    /// ```swift
    /// context.undo()
    /// context.redo()   // as before the undo
    /// ```
    public func redo() {
        checkQueue()
        guard let history = undoHistory else { return }
        history.closeEveryGroup()
        guard let group = history.redoStack.popLast() else { return }
        history.undoStack.append(applyUndoGroup(group))
        processPendingChangesIfTracked()
    }

    // MARK: Recording

    func willChangeForUndo(_ object: ManagedObject, property: Int) {
        settleSave()   // before the step is recorded: applying a save clears the history
        guard let history = undoHistory, !history.isSuspended, object.storageOwner === self else { return }
        let step = history.step(for: object, presence: presence(of: object))
        let attributeCount = object.entity.attributes.count
        if property < attributeCount {
            if step.attributes[property] == nil, property < object.attributeValues.count { step.attributes[property] = object.attributeValues[property] }
        } else {
            let slot = property - attributeCount
            if step.relations[slot] == nil, slot < object.relationValues.count { step.relations[slot] = object.relationValues[slot] }
        }
    }

    /// An insert: the object was not in the context before the group.
    func recordInsertForUndo(_ object: ManagedObject) {
        guard let history = undoHistory, !history.isSuspended else { return }
        object.lifecycle.recordsUndo = true
        _ = history.step(for: object, presence: .absent)
    }

    /// A delete is about to change the object's presence.
    func recordPresenceForUndo(_ object: ManagedObject) {
        guard let history = undoHistory, !history.isSuspended else { return }
        _ = history.step(for: object, presence: presence(of: object))
    }

    /// Where `object` stands in this context.
    private func presence(of object: ManagedObject) -> UndoGroup.Presence {
        if object.lifecycle.isDeleted { return registry[object.objectID] === object || pending.deleted.contains(object) ? .deleted : .absent }
        return registry[object.objectID] === object ? .live : .absent
    }

    // MARK: Applying

    /// Puts back what `group` recorded and returns the group that puts back what was there
    /// instead (the redo of an undo, the undo of a redo).
    private func applyUndoGroup(_ group: UndoGroup) -> UndoGroup {
        let history = undoHistory
        history?.isSuspended = true
        defer { history?.isSuspended = false }
        let inverse = UndoGroup()
        var leaving: [ManagedObject] = []
        var touched: [ManagedObject] = []
        var entities = Set<Int>()
        for step in group.steps.values.reversed() {
            let object = step.object
            // An object gone with a merged delete or a reset has nothing to put back.
            guard object.storageOwner === self || step.presence == .live && object.storageOwner == nil && object.lifecycle.isInserted else { continue }
            let now = presence(of: object)
            let back = inverse.step(for: object, presence: now)
            if step.presence == .absent {
                // Leaving the context: a redo needs every value back.
                if now != .absent {
                    for slot in object.attributeValues.indices { back.attributes[slot] = object.attributeValues[slot] }
                    for slot in object.relationValues.indices { back.relations[slot] = object.relationValues[slot] }
                    leaving.append(object)
                }
            } else {
                if step.presence == .live, now != .live { setPresence(of: object, from: now, to: .live) }
                for (slot, value) in step.attributes {
                    if back.attributes[slot] == nil, slot < object.attributeValues.count { back.attributes[slot] = object.attributeValues[slot] }
                    object.restoreAttribute(value, at: slot)
                }
                for (slot, value) in step.relations {
                    if back.relations[slot] == nil, slot < object.relationValues.count { back.relations[slot] = object.relationValues[slot] }
                    object.restoreRelation(value, at: slot)
                }
                if step.presence == .deleted, now != .deleted { setPresence(of: object, from: now, to: .deleted) }
            }
            touched.append(object)
            entities.insert(object.entity.index)
        }
        // Objects whose insert is undone leave every loaded relationship, as a rollback's do.
        for object in leaving {
            registry[object.objectID] = nil
            pending.forget(object)
        }
        forget(leaving)
        // Edits undone back to the saved values are no longer changes.
        for object in touched where object.storageOwner === self && !object.lifecycle.isInserted && !object.lifecycle.isDeleted && object.lifecycle.hasChanges {
            if !object.dropChangesEqualToSaved() {
                object.clearChanges()
                pending.updated.remove(object)
            }
        }
        // Loaded to-manys that were not edited read again, so they list objects that came back.
        invalidateToMany(towards: entities)
        clearPendingIfNone()
        return inverse
    }

    /// Moves `object` between being absent, live and deleted in this context.
    private func setPresence(of object: ManagedObject, from now: UndoGroup.Presence, to target: UndoGroup.Presence) {
        switch (now, target) {
        case (.absent, .live):
            // An undone insert comes back (it left the context: its storage is made again).
            object.setOwner(self)
            if object.relationValues.count != object.entity.relationships.count { object.relationValues = object.entity.newRelationValues }
            object.lifecycle.isDeleted = false
            object.lifecycle.isInserted = true
            object.lifecycle.recordsUndo = true
            registry[object.objectID] = object
            pending.inserted.append(object)
        case (.deleted, .live):
            object.lifecycle.isDeleted = false
            pending.deleted.remove(object)
            if object.lifecycle.isInserted {
                registry[object.objectID] = object
                pending.inserted.append(object)
            } else if object.lifecycle.hasChanges {
                pending.updated.append(object)
            }
        case (.live, .deleted):
            object.lifecycle.isDeleted = true
            if object.lifecycle.isInserted {
                pending.inserted.remove(object)
                registry[object.objectID] = nil
            } else {
                pending.updated.remove(object)
                pending.deleted.append(object)
            }
        default:
            return
        }
        notePending(object.entity)
    }
}

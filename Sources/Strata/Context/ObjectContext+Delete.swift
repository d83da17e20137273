extension ObjectContext {
    /// Deletes `object`, applying each relationship's delete rule at once: `.nullify` removes
    /// it from its destinations' inverses, `.cascade` deletes the destinations too, `.deny`
    /// is checked at save (which then fails if destinations remain), `.noAction` does nothing.
    ///
    /// For example:
    /// ```swift
    /// context.delete(folder)      // with .cascade, its notes go too
    /// try context.save()
    /// ```
    public func delete(_ object: ManagedObject) {
        checkQueue()
        guard !object.lifecycle.isPreparingDeletion else { return }   // from its own hook, or its cascade's
        var prepared: [ManagedObject] = []
        prepareForDeletion(object, into: &prepared)
        for each in prepared { each.lifecycle.isPreparingDeletion = false }
        let done = Set(prepared.map(ObjectIdentifier.init))
        applyDelete(object, prepared: done)
    }

    /// Calls `prepareForDeletion()` on `object` and on everything its cascades would delete,
    /// each once and before any rule runs, so every hook sees the relationships still set.
    private func prepareForDeletion(_ object: ManagedObject, into prepared: inout [ManagedObject]) {
        guard object.storageOwner === self, !object.lifecycle.isDeleted, !object.lifecycle.isPreparingDeletion else { return }
        object.willAccess()
        object.lifecycle.isPreparingDeletion = true   // a delete of it from a hook is ignored
        prepared.append(object)
        object.prepareForDeletion()
        for (index, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .cascade {
            let targets: [ManagedObject] = relationship.isToMany ? Array(object.toMany(at: index)) : (object.toOne(at: index).map { [$0] } ?? [])
            for target in targets { prepareForDeletion(target, into: &prepared) }
        }
    }

    /// Applies the delete rules and records the delete. A cascade target that a hook added
    /// after the hooks ran gets its own hook first.
    private func applyDelete(_ object: ManagedObject, prepared: Set<ObjectIdentifier>) {
        guard object.storageOwner === self, !object.lifecycle.isDeleted else { return }
        object.willAccess()
        if undoHistory != nil { recordPresenceForUndo(object) }
        var cascade: [ManagedObject] = []
        for (index, relationship) in object.entity.relationships.enumerated() {
            guard relationship.deleteRule == .nullify || relationship.deleteRule == .cascade else { continue }
            let targets: [ManagedObject] = relationship.isToMany ? Array(object.toMany(at: index)) : (object.toOne(at: index).map { [$0] } ?? [])
            for target in targets {
                target.detach(object, at: relationship.inverseIndex)
                if relationship.deleteRule == .cascade { cascade.append(target) }
            }
        }
        object.lifecycle.isDeleted = true
        notePending(object.entity)
        if object.lifecycle.isInserted || (parent == nil && object.objectID.isTemporary) {
            pending.inserted.remove(object)
            registry[object.objectID] = nil
        } else {
            pending.updated.remove(object)
            pending.deleted.append(object)
        }
        for target in cascade {
            if prepared.contains(ObjectIdentifier(target)) { applyDelete(target, prepared: prepared) } else { delete(target) }
        }
    }
}

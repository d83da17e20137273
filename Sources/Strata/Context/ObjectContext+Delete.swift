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
        guard object.storageOwner === self, !object.lifecycle.isDeleted else { return }
        object.willAccess()
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
        for target in cascade { delete(target) }
    }
}

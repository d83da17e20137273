import OrderedCollections

/// Relationship reads and writes. Every write keeps the inverse side in step at once, the
/// way Core Data does: `note.folder = inbox` also puts `note` into `inbox.notes`.
extension ManagedObject {
    /// The destination of the to-one relationship at `index`.
    @usableFromInline final func toOne(at index: Int) -> ManagedObject? {
        willAccess()
        guard index < relationValues.count else { return nil }
        switch relationValues[index] {
        case .toOne(let object):
            return object
        case .toOneID(let id):
            let object = id.flatMap { id in storageOwner?.resolve(id) }
            relationValues[index] = .toOne(object)
            return object
        case .unloaded:
            let object = storageOwner?.loadToMany(self, relationship: index).first
            relationValues[index] = .toOne(object)
            return object
        case .toMany:
            return nil
        }
    }

    /// The destinations of the to-many relationship at `index` (in order when ordered).
    final func toMany(at index: Int) -> OrderedSet<ManagedObject> {
        willAccess()
        guard index < relationValues.count else { return [] }
        if case .toMany(let objects) = relationValues[index] { return objects }
        let objects = OrderedSet(storageOwner?.loadToMany(self, relationship: index) ?? [])
        relationValues[index] = .toMany(objects)
        return objects
    }

    /// Sets the to-one relationship at `index`, updating inverses.
    @usableFromInline final func setToOne(_ target: ManagedObject?, at index: Int) {
        let old = toOne(at: index)
        guard old !== target else { return }
        let inverse = entity.relationships[index].inverseIndex
        if let old { old.detach(self, at: inverse) }
        if let target {
            if !target.entity.relationships[inverse].isToMany, let previous = target.toOne(at: inverse), previous !== self {
                previous.primitiveSetToOne(nil, at: index)
            }
            target.attach(self, at: inverse)
        }
        primitiveSetToOne(target, at: index)
    }

    /// Replaces the to-many relationship at `index`, updating inverses.
    final func setToMany(_ targets: OrderedSet<ManagedObject>, at index: Int) {
        let old = toMany(at: index)
        guard old != targets || (entity.relationships[index].isOrdered && !old.elementsEqual(targets, by: ===)) else { return }
        let inverse = entity.relationships[index].inverseIndex
        for removed in old where !targets.contains(removed) { removed.detach(self, at: inverse) }
        for added in targets where !old.contains(added) { adopt(added, at: index, inverse: inverse) }
        // The loops may fire faults (a whole fetch page at once): a row read meanwhile that
        // names this object joined this to-many quietly (ObjectContext+Inverses). It is not
        // in the new value, so it leaves, its inverse included.
        if case .toMany(let now) = relationValues[index], now != old {
            for late in now where !targets.contains(late) && !old.contains(late) { late.detach(self, at: inverse) }
        }
        primitiveReplace(targets, at: index)
    }

    /// Adds `target` to the to-many relationship at `index` (at the end when ordered).
    final func addToMany(_ target: ManagedObject, at index: Int) {
        guard !toMany(at: index).contains(target) else { return }
        adopt(target, at: index, inverse: entity.relationships[index].inverseIndex)
        primitiveInsert(target, at: index)
    }

    /// Removes `target` from the to-many relationship at `index`.
    final func removeFromMany(_ target: ManagedObject, at index: Int) {
        guard toMany(at: index).contains(target) else { return }
        target.detach(self, at: entity.relationships[index].inverseIndex)
        primitiveRemove(target, at: index)
    }

    /// Makes `target` point back at self through `inverse`, taking it from its previous owner.
    private func adopt(_ target: ManagedObject, at index: Int, inverse: Int) {
        if !target.entity.relationships[inverse].isToMany, let previous = target.toOne(at: inverse), previous !== self {
            previous.primitiveRemove(target, at: index)
        }
        target.attach(self, at: inverse)
    }

    /// Adds `other` to this object's relationship at `index` without touching inverses.
    final func attach(_ other: ManagedObject, at index: Int) {
        if entity.relationships[index].isToMany { primitiveInsert(other, at: index) } else { primitiveSetToOne(other, at: index) }
    }

    /// Removes `other` from this object's relationship at `index` without touching inverses.
    final func detach(_ other: ManagedObject, at index: Int) {
        if entity.relationships[index].isToMany {
            primitiveRemove(other, at: index)
        } else if toOne(at: index) === other {
            primitiveSetToOne(nil, at: index)
        }
    }

    // MARK: Primitive writes: change tracking, no inverse maintenance

    final func primitiveSetToOne(_ target: ManagedObject?, at index: Int) {
        willAccess()
        relationWillChange(index)
        relationValues[index] = .toOne(target)
        if let target { storageOwner?.notePointer(to: target.objectID, holder: self, relationship: index) }
    }

    final func primitiveInsert(_ target: ManagedObject, at index: Int) {
        var objects = toMany(at: index)
        guard !objects.contains(target) else { return }
        relationWillChange(index)            // captures the committed set first, when one is due
        relationValues[index] = .unloaded  // drop the reference so the append does not copy
        objects.append(target)
        relationValues[index] = .toMany(objects)
        noteHeld(target, through: index)
    }

    final func primitiveRemove(_ target: ManagedObject, at index: Int) {
        var objects = toMany(at: index)
        guard objects.contains(target) else { return }
        relationWillChange(index)
        relationValues[index] = .unloaded
        objects.remove(target)
        relationValues[index] = .toMany(objects)
    }

    final func primitiveReplace(_ targets: OrderedSet<ManagedObject>, at index: Int) {
        _ = toMany(at: index)
        relationWillChange(index)
        relationValues[index] = .toMany(targets)
        for target in targets { noteHeld(target, through: index) }
    }

    /// Files on `member` that this object's to-many `index` holds it (a hint for the context,
    /// see `ObjectContext+Inverses.swift`); nothing for a member of another context.
    final func noteHeld(_ member: ManagedObject, through index: Int) {
        guard let owner = storageOwner, member.storageOwner === owner else { return }
        member.heldBy.add(self, through: entity.relationships[index].inverseIndex)
    }

    /// Tracks a relationship change: committed state is captured the first time.
    final func relationWillChange(_ index: Int) {
        if lifecycle.recordsUndo { storageOwner?.willChangeForUndo(self, property: entity.attributes.count + index) }
        willChange()
        if !lifecycle.isInserted, committedRelations[index] == nil { committedRelations[index] = relationValues[index] }
        changedProperties.insert(entity.attributes.count + index)
    }
}

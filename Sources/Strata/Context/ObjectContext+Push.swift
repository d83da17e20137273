import OrderedCollections

/// One object's changes, as a child context pushes them into its parent.
struct PushedObject: Sendable {
    var id: ObjectID
    /// Attribute values by slot (all of them for an insert, the changed ones otherwise).
    var attributes: [Int: PropertyValue]
    /// Changed to-one relationships by slot.
    var toOne: [Int: ObjectID?]
    /// Changed to-many relationships by slot (the whole new content, in order).
    var toMany: [Int: [ObjectID]]
}

/// A child context's save, as its parent receives it.
struct PushedChanges: Sendable {
    var inserted: [PushedObject] = []
    var updated: [PushedObject] = []
    var deleted: [ObjectID] = []
}

extension ObjectContext {
    /// A child's save: its changes go into the parent in memory, in one synchronous step on
    /// the parent's queue; nothing is written to the store.
    func push(to parent: ObjectContext) throws(StrataError) {
        var pushed = PushedChanges()
        for object in inserted { pushed.inserted.append(pushedObject(object, everything: true)) }
        for object in updated { pushed.updated.append(pushedObject(object, everything: false)) }
        pushed.deleted = deleted.map(\.objectID)
        let changes = ChangeSet(
            inserted: Set(pushed.inserted.map(\.id)),
            updated: Dictionary(uniqueKeysWithValues: updated.map { ($0.objectID, $0.changedValues()) }),
            deleted: Set(pushed.deleted))
        try parent.syncOnQueue { () throws(StrataError) in parent.absorb(pushed, from: self) }
        let saved = Array(inserted) + Array(updated)
        for object in inserted { object.lifecycle.isInserted = false }
        for object in saved { object.clearChanges() }
        forget(Array(deleted))
        let all = saved + Array(deleted)
        inserted.removeAll()
        updated.removeAll()
        deleted.removeAll()
        clearPendingIfNone()
        for object in all { object.didSave() }
        publish(changes)
    }

    private func pushedObject(_ object: ManagedObject, everything: Bool) -> PushedObject {
        let entity = object.entity
        var pushed = PushedObject(id: object.objectID, attributes: [:], toOne: [:], toMany: [:])
        for i in entity.attributes.indices where everything || object.changedProperties.contains(i) {
            pushed.attributes[i] = object.attributeValues[i]
        }
        for (r, relationship) in entity.relationships.enumerated() where everything || object.changedProperties.contains(entity.attributes.count + r) {
            switch object.relationValues[r] {
            case .toOne(let target): pushed.toOne[r] = .some(target?.objectID)
            case .toOneID(let id): pushed.toOne[r] = .some(id)
            case .toMany(let targets): pushed.toMany[r] = targets.map(\.objectID)
            case .unloaded: if relationship.isToMany && everything { pushed.toMany[r] = [] }
            }
        }
        return pushed
    }

    /// Applies a child's pushed changes as if they were made here (tracked, with inverses and
    /// delete rules), then tells observers and the other children.
    func absorb(_ pushed: PushedChanges, from child: ObjectContext) {
        for object in pushed.inserted where registered[object.id] == nil {
            let entity = object.id.entity
            let creation = ObjectCreation(entity: entity, objectID: object.id, attributeValues: entity.defaultAttributeValues,
                                          relationValues: entity.newRelationValues, isFault: false)
            let made = ObjectConstruction.make(entity, creation, collectsDefaults: false).0
            made.storageOwner = self
            made.lifecycle.isInserted = true
            registered[object.id] = made
            inserted.append(made)
            notePending(entity)
        }
        let changed = pushed.inserted + pushed.updated
        for change in changed {
            guard let object = known(change.id) else { continue }
            for (slot, value) in change.attributes { object.setAttributeValue(value, at: slot) }
        }
        for change in changed {
            guard let object = known(change.id) else { continue }
            for (slot, target) in change.toOne { object.setToOne(target.flatMap(known), at: slot) }
            for (slot, targets) in change.toMany { object.setToMany(OrderedSet(targets.compactMap(known)), at: slot) }
        }
        var changes = ChangeSet(inserted: Set(pushed.inserted.map(\.id)), deleted: Set(pushed.deleted))
        for change in pushed.updated {
            guard let object = registered[change.id] ?? registered[permanentIDByTemporary[change.id] ?? change.id], !object.lifecycle.isFault else { continue }
            var values: [String: PropertyValue] = [:]
            for slot in change.attributes.keys { values[object.entity.attributes[slot].name] = object.attributeValues[slot] }
            for slot in change.toOne.keys { values[object.entity.relationships[slot].name] = object.relationValues[slot].propertyValue }
            for slot in change.toMany.keys { values[object.entity.relationships[slot].name] = object.relationValues[slot].propertyValue }
            changes.updated[object.objectID] = values
        }
        for id in pushed.deleted { if let object = known(id) { delete(object) } }
        publish(changes, except: child)
    }

    /// The object for an ID a child named: registered (under its permanent ID if it has
    /// one now), or a fault for a saved row. An unknown temporary ID names an object that is
    /// gone here (deleted, or cascaded away), so there is nothing to change.
    private func known(_ id: ObjectID) -> ManagedObject? {
        let current = permanentIDByTemporary[id] ?? id
        if let object = registered[current] { return object.lifecycle.isDeleted ? nil : object }
        return current.isTemporary ? nil : resolve(current)
    }

    /// Gives the objects permanent IDs now, before they are saved to the store (keys are
    /// reserved in the store at once). Other contexts holding them learn the new IDs.
    ///
    /// For example:
    /// ```swift
    /// try context.obtainPermanentIDs(for: [note])
    /// let url = note.objectID.uriRepresentation   // stable from now on
    /// ```
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws(StrataError) {
        checkQueue()
        let temporary = objects.filter { $0.objectID.isTemporary && $0.storageOwner === self }
        guard !temporary.isEmpty else { return }
        var mapping: [ObjectID: ObjectID] = [:]
        var byEntity: [Int: [ManagedObject]] = [:]
        for object in temporary { byEntity[object.entity.index, default: []].append(object) }
        for (index, group) in byEntity {
            let entity = model.entities[index]
            let first = try coordinator.reserveKeys(for: entity, count: group.count)
            for (offset, object) in group.enumerated() { mapping[object.objectID] = ObjectID(entity: entity, key: first + Int64(offset)) }
        }
        var ancestor = parent
        while let current = ancestor {
            current.queue.sync { current.applyPermanentIDs(mapping) }
            ancestor = current.parent
        }
        applyPermanentIDs(mapping)
        publish(ChangeSet(permanentIDs: mapping))
    }
}

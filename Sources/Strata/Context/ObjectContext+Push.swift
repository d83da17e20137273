import OrderedCollections

extension ObjectContext {
    /// A child's save: its change batch goes into the parent in memory; nothing is written to
    /// the store. A main-queue parent applies it at once, the child waiting; a private-queue
    /// parent is handed it and applies it on its queue before any work queued there after the
    /// save (``absorbLater(_:from:rows:)``), so the child's queue (main, for a writer's child)
    /// does not wait for it. The rows of a large batch's saved objects are read first, here
    /// (``PushRows``), unless the rows a child's push brought here are current and cover them
    /// (an editor's commit on its way from main to the writer).
    func push(_ batch: ChangeBatch, to parent: ObjectContext) throws(StrataError) {
        try push(batch, to: parent, rows: rows(pushing: batch, to: parent))
    }

    /// The rows to push `batch` into `parent` with: the ones a child's push brought here when
    /// they are current and cover it (an editor's commit on its way from main to the writer),
    /// else read now (``PushRows``). Either way the brought rows are dropped.
    func rows(pushing batch: ChangeBatch, to parent: ObjectContext) -> PushRows? {
        let brought = pushedRows.flatMap { $0.areCurrent(for: parent) && $0.cover(batch) ? $0 : nil }
        pushedRows = nil
        return brought ?? PushRows.read(for: batch, below: parent)
    }

    /// ``push(_:to:)`` with the rows read for it (`nil`: the parent reads what it needs).
    func push(_ batch: ChangeBatch, to parent: ObjectContext, rows: PushRows?) throws(StrataError) {
        let changes = Self.changeSet(pushing: batch)
        if parent.queue.isMain {
            // Made here, while main is free: main adopts the ones it does not hold. Not when
            // main would not take the rows, nor by a child on main itself (no second core).
            // The record is dropped here once main is done, so the objects main did not take
            // are freed on this queue.
            let prepared = rows.flatMap { $0.areCurrent(for: parent) && !queue.isMain ? PreparedObjects.make(for: batch, rows: $0, in: self) : nil }
            try parent.syncOnQueue { () throws(StrataError) in parent.absorb(batch, from: self, rows: rows, reported: changes, prepared: prepared) }
            didPush(changes)
        } else {
            hand(batch, to: parent, rows: rows, changes: changes)
        }
        LargeValueRelease.release(consume changes, changes: batch.changeCount)
    }

    /// The change set a push of `batch` reports, here and to the parent. Any queue may make it.
    static func changeSet(pushing batch: ChangeBatch) -> ChangeSet {
        var maker = ChangedValuesMaker()
        var changes = ChangeSet(
            inserted: Set(batch.inserted.map(\.id)),
            updated: Dictionary(uniqueKeysWithValues: batch.updated.map { ($0.id, maker.values(of: $0)) }),
            deleted: Set(batch.deleted.map(\.id)))
        changes.summariseUpdatedKeys(of: batch.updated)
        return changes
    }

    /// Hands `batch` to a private-queue `parent` (``absorbLater(_:from:rows:reported:)``)
    /// and ends the push here.
    func hand(_ batch: ChangeBatch, to parent: ObjectContext, rows: PushRows?, changes: ChangeSet) {
        parent.absorbLater(batch, from: self, rows: rows, reported: changes)
        didPush(changes)
    }

    /// The end of a push on the child: nothing is pending, and observers and children hear
    /// `changes`.
    private func didPush(_ changes: ChangeSet) {
        finishSave(forgetting: Array(pending.deleted))
        publish(changes)
    }

    /// Applies a child's change batch as if its changes were made here (tracked, with inverses
    /// and delete rules), then tells observers and the other children. Faults it updates fill
    /// from `rows` when they are current, the others a page at a time from the layer below.
    /// `reported` is the child's own change set for the batch, made on the child's queue: an
    /// attribute-only update is reported here with its dictionary, and the keys the updates
    /// name are its summary, not made again here.
    func absorb(_ batch: ChangeBatch, from child: ObjectContext?, rows: PushRows?, reported: ChangeSet, prepared: PreparedObjects? = nil) {
        settleSave()   // a child's changes land after the save in flight
        // A child's save is not an edit made here: the parent's undo history does not record it.
        let undo = undoHistory, wasSuspended = undo?.isSuspended ?? false
        undo?.isSuspended = true
        defer { undo?.isSuspended = wasSuspended }
        for change in batch.inserted where registry[change.id] == nil {
            let entity = change.id.entity
            let creation = ObjectCreation(objectID: change.id, attributeValues: entity.defaultAttributeValues,
                                          relationValues: entity.newRelationValues, isFault: false)
            let made = ObjectConstruction.make(entity, creation, reusing: nil).0
            made.setOwner(self)
            made.lifecycle.isInserted = true
            made.lifecycle.recordsUndo = undo != nil
            registry[change.id] = made
            pending.inserted.append(made)
            notePending(entity)
        }
        let changed = batch.inserted + batch.updated
        let rowsAreCurrent = rows?.areCurrent(for: self) ?? false
        // Looked up once: applying values and relationships neither deletes nor renames them.
        var targets = batch.inserted.map { known($0.id) }
        targets.reserveCapacity(changed.count)
        // Objects read just now (adopted, or faults filled from the rows): woken together once
        // all are in place, as a firing fault's batch is (a hook may touch another).
        var awakened: [ManagedObject] = []
        // Asked once: a row is taken only for an entity no ancestor may hold unsaved changes of.
        let heldAbove = rowsAreCurrent ? source.ancestorsPendingBits() : .max
        if let prepared, rowsAreCurrent {
            awakened.reserveCapacity(prepared.count)
            for (i, change) in batch.updated.enumerated() {
                targets.append(known(change.id) { adopt($0, from: prepared, at: i, unless: heldAbove, into: &awakened) ?? resolve($0) })
            }
        } else {
            for change in batch.updated { targets.append(known(change.id)) }
        }
        if let rows, rowsAreCurrent {
            fill(targets[batch.inserted.count...], from: rows, unless: heldAbove, into: &awakened)
            if parent != nil { pushedRows = rows }
        }
        for object in awakened where object.valueErrors[-1] == nil { object.awakeFromFetch() }
        // Sized once for a large push onto no pending updates (reserving on every push would
        // grow the storage by the push each time, not geometrically).
        if pending.updated.isEmpty && batch.updated.count >= PushRows.minimumUpdates { pending.updated.reserveCapacity(batch.updated.count) }
        groupFaults(targets[batch.inserted.count...], deleted: batch.deleted)
        // An object still holding the row the child made its values from takes them whole.
        let madeAhead = rowsAreCurrent ? prepared : nil
        for (i, (change, object)) in zip(changed, targets).enumerated() {
            guard let object else { continue }
            if i >= batch.inserted.count, let madeAhead, madeAhead.takeChangedValues(at: i - batch.inserted.count, for: object) { continue }
            for slot in change.values.indices where change.changesAttribute(at: slot) { object.setAttributeValue(change.values[slot], at: slot) }
        }
        for (change, object) in zip(changed, targets) {
            guard let object else { continue }
            for relation in change.relations {
                switch relation.kind {
                case .toOne(let target, _): object.setToOne(target.flatMap(known), at: relation.slot)
                case .toMany(let members, let original): object.setToMany(pushed(members, original: original, onto: object, at: relation.slot), at: relation.slot)
                }
            }
        }
        var changes = ChangeSet(inserted: Set(batch.inserted.map(\.id)), deleted: Set(batch.deleted.map(\.id)))
        if Self.updatesAreAsReported(batch.updated, reported, targets[batch.inserted.count...]) {
            changes.updated = reported.updated   // shared, not rebuilt: no lookup or insert per object here
        } else {
            if !batch.updated.isEmpty { changes.updated.reserveCapacity(batch.updated.count) }
            for change in batch.updated {
                guard let object = registry.object(named: change.id), !object.lifecycle.isFault else { continue }
                if change.relations.isEmpty {   // the values just set here, as the child reported them (made on its queue)
                    changes.updated[object.objectID] = reported.updated[change.id] ?? change.changedValues
                    continue
                }
                var values: [String: PropertyValue] = [:]
                for slot in change.values.indices where change.changesAttribute(at: slot) { values[object.entity.attributes[slot].name] = object.attributeValues[slot] }
                for relation in change.relations { values[object.entity.relationships[relation.slot].name] = object.relationValues[relation.slot].propertyValue }
                changes.updated[object.objectID] = values
            }
        }
        // The keys the updates name, for observers that read other keys to pass over them all:
        // the child's summary of the same batch (these updates are some of its, by the same
        // names). A method, not the property: Swift 6.3 rejects `consume changes` below after that.
        changes.takeUpdatedKeys(of: reported)
        for deletion in batch.deleted { if let object = known(deletion.id) { delete(object) } }
        publish(changes, except: child)
        LargeValueRelease.release(consume changes, changes: batch.changeCount)
    }

    /// Whether this context reports a push's updates exactly as the child did (`reported`):
    /// every update sets attributes only, on an object held here, loaded, under the child's
    /// ID. Then the loop that makes the report entry by entry would make the child's.
    private static func updatesAreAsReported(_ updates: [ObjectChange], _ reported: ChangeSet, _ objects: ArraySlice<ManagedObject?>) -> Bool {
        guard reported.updated.count == updates.count else { return false }
        for (change, object) in zip(updates, objects) {
            guard change.relations.isEmpty, let object, object.objectID == change.id, !object.lifecycle.isFault else { return false }
        }
        return true
    }

    /// Hands a child's batch to this private-queue context: it is applied on this queue before
    /// any work queued here afterwards (a `perform`, another push, the writer's save), and
    /// until then every child reads through this context (``pushesInFlight``), never the store
    /// directly, so no one sees the store's older rows in between. Nothing in applying a push
    /// can fail, so the child has nothing to wait for.
    func absorbLater(_ batch: ChangeBatch, from child: ObjectContext, rows: PushRows?, reported: ChangeSet) {
        pushesInFlight.add(1, ordering: .sequentiallyConsistent)
        // Weakly: a child dropped meanwhile must not be freed (its objects detached) on this queue.
        queue.async { [weak child] in
            self.catchUpPermanentIDs()   // apply under the IDs the child may already use
            self.absorb(batch, from: child, rows: rows, reported: reported)
            self.pushesInFlight.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Fills the updated objects held here as faults from current rows the child read for the
    /// push (this context's own read would give the same rows), but not those of the entities
    /// in `heldAbove` (``RowSource/ancestorsPendingBits()``).
    private func fill(_ updated: ArraySlice<ManagedObject?>, from rows: PushRows, unless heldAbove: UInt64, into filled: inout [ManagedObject]) {
        for object in updated {
            guard let object, object.lifecycle.isFault, ObjectContext.pendingBit(object.entity) & heldAbove == 0,
                  let row = rows.rows[object.objectID] else { continue }
            fill(object, with: row)
            filled.append(object)
        }
    }

    /// Puts the saved rows a batch changes (`updated`, already looked up) or deletes, held
    /// here as faults, into pages that fire together, so applying a large push reads them a
    /// page at a time instead of one row (and one read transaction) per object.
    private func groupFaults(_ updated: ArraySlice<ManagedObject?>, deleted: [ObjectDeletion]) {
        var byEntity: [Int: [ManagedObject]] = [:]
        func add(_ object: ManagedObject?) {
            guard let object, object.lifecycle.isFault, object.faultBatch == nil else { return }
            byEntity[object.entity.index, default: []].append(object)
        }
        for object in updated { add(object) }
        for deletion in deleted { add(known(deletion.id)) }
        for group in byEntity.values where group.count > 1 { groupFaults(group, pageSize: StoreCoordinator.keyChunk) }
    }

    /// What a child's to-many becomes here. When the child read the relationship before
    /// changing it (`original`), only its own additions and removals apply: members this
    /// context gained meanwhile (a sibling's push, a merge) stay, after the child's in an
    /// ordered relationship. A relationship the child replaced without reading it, or filled
    /// on an insert, is taken as the child holds it.
    private func pushed(_ members: [ObjectID], original: [ObjectID]?, onto object: ManagedObject, at slot: Int) -> OrderedSet<ManagedObject> {
        let theirs = OrderedSet(members.compactMap(known))
        guard let original else { return theirs }
        let before = Set(original.compactMap(known).map(ObjectIdentifier.init))
        let kept = Set(theirs.map(ObjectIdentifier.init))
        let removed = before.subtracting(kept)
        let current = object.toMany(at: slot)
        let here = Set(current.map(ObjectIdentifier.init))
        // A member the child had and kept is not an addition: if it left here meanwhile, it stays out.
        let staying = theirs.filter { !before.contains(ObjectIdentifier($0)) || here.contains(ObjectIdentifier($0)) }
        let gained = current.filter { !removed.contains(ObjectIdentifier($0)) && !kept.contains(ObjectIdentifier($0)) }
        if object.entity.relationships[slot].isOrdered { return OrderedSet(staying).union(gained) }
        return OrderedSet(current.filter { !removed.contains(ObjectIdentifier($0)) }).union(staying)
    }

    /// The object for an ID a child named: registered (under its permanent ID if it has
    /// one now), or a fault for a saved row. An unknown temporary ID names an object that is
    /// gone here (deleted, or cascaded away), so there is nothing to change.
    private func known(_ id: ObjectID) -> ManagedObject? {
        known(id, orMake: resolve)
    }

    /// ``known(_:)`` with `make` giving the object for a saved row this context does not hold
    /// (called with its current ID).
    private func known(_ id: ObjectID, orMake make: (ObjectID) -> ManagedObject) -> ManagedObject? {
        let current = registry.current(id)
        if let object = registry[current] { return object.lifecycle.isDeleted ? nil : object }
        return current.isTemporary ? nil : make(current)
    }

    /// Takes the object for `id` that a child made for the update at `index` of its push,
    /// from the row this context's own read would give, as a fetched object (registered, its
    /// to-ones joined to the loaded graph) and adds it to `adopted`. Nil when there is none,
    /// or when an ancestor with unsaved changes of the entity may hold a newer state of the row
    /// than the store's (its bit is in `heldAbove`; `fill` does not take the rows then either).
    private func adopt(_ id: ObjectID, from prepared: PreparedObjects, at index: Int, unless heldAbove: UInt64, into adopted: inout [ManagedObject]) -> ManagedObject? {
        guard ObjectContext.pendingBit(id.entity) & heldAbove == 0, let object = prepared.take(at: index, id: id) else { return nil }
        object.setOwner(self)
        object.lifecycle.recordsUndo = undoHistory != nil
        registry[object.objectID] = object
        adoptRowRelations(object)
        adopted.append(object)
        return object
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
        catchUpPermanentIDs()
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
        // Deposited below the topmost ancestor first (siblings and their children too), so no
        // context is answered under the new IDs before its inbox holds them; then applied up the chain.
        var top: ObjectContext = self
        while let above = top.parent { top = above }
        top.depositPermanentIDsBelow(mapping)
        var ancestor = parent
        while let current = ancestor {
            current.queue.sync { current.applyPermanentIDs(mapping) }
            ancestor = current.parent
        }
        applyPermanentIDs(mapping)
        publish(ChangeSet(permanentIDs: mapping))
    }
}

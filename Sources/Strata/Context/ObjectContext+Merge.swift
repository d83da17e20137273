import OrderedCollections

extension ObjectContext {
    /// Applies a change set saved elsewhere (another context, a batch request, another
    /// coordinator on the same file) to this context.
    ///
    /// Only objects the context holds are touched: deleted ones are removed, updated ones take
    /// the new values (faults stay faults and read fresh values when touched), inserted ones
    /// are not materialised. Unsaved local edits of a key are kept under every
    /// ``mergePolicy``, as Core Data's merge keeps them (it refreshes with `mergeChanges: true`):
    /// the policy decides at save, and since the merge brought the row's new version, saving
    /// the kept edit later writes it without a conflict. Observers of this context then
    /// receive the change set.
    ///
    /// A report of unsaved edits (``ChangeSet/isUnsaved``, from another context's
    /// ``processPendingChanges()``) is not merged: nothing is saved that it could describe.
    /// Its permanent IDs, if any, still apply.
    ///
    /// For example:
    /// ```swift
    /// let token = importContext.observeChanges { changes in
    ///     Task { await main.perform { main.merge(changes) } }
    /// }
    /// ```
    public func merge(_ changes: ChangeSet) {
        checkQueue()
        guard !changes.isUnsaved else {
            if !changes.permanentIDs.isEmpty { mergeChanges(ChangeSet(permanentIDs: changes.permanentIDs)) }
            return
        }
        mergeChanges(changes)
    }

    /// Merges `changes`; `fromParent` when they are the parent's (its save, or what it
    /// merged), rather than a save outside this context's ancestors.
    func mergeChanges(_ changes: ChangeSet, fromParent: Bool = false) {
        settleSave()
        // A merge inside an observer of another ends that one's rows: it may pass over updates
        // of objects not held here, which those rows would then predate.
        mergingChanges = nil
        mergingLookup = nil
        catchUpPermanentIDs()
        // The temporary IDs of a save outside this context's ancestors are the saver's own:
        // only an object registered here under one (a fault made from an ID handed across) can
        // name them, so only those apply and go on to the children. (A child's own fault made
        // from such an ID is not renamed: temporary IDs are not meant to cross contexts, as in
        // Core Data.) IDs of this context's ancestors' saves need not come this way: the
        // saving root deposits its whole mapping in every descendant's inbox
        // (`catchUpPermanentIDs`, above), which also rewrites to-ones naming the ancestors'
        // objects. A change set from the parent applies in full all the same. (The hybrid
        // stack's main context would otherwise walk every ID of every import twice: once
        // merging it, once when its parent, the writer, passes it down.)
        var forChildren = changes
        if !fromParent, !changes.permanentIDs.isEmpty {
            let held = registry.registeredEntries(of: changes.permanentIDs)
            if held.count != changes.permanentIDs.count { forChildren.permanentIDs = held }
        }
        if !forChildren.permanentIDs.isEmpty { applyPermanentIDs(forChildren.permanentIDs) }
        forget(changes.deleted.compactMap { registry[$0] })
        // Whichever side is smaller is walked: a main context holding a screenful of objects
        // while an import's updates arrive looks up its few objects, not every update.
        if registry.count < changes.updated.count {
            for (id, object) in registry.entries {
                if let values = changes.updated[id] { mergeUpdate(values, into: object, id: id, versions: changes.versions) }
            }
        } else {
            for (id, values) in changes.updated {
                if let object = registry[id] { mergeUpdate(values, into: object, id: id, versions: changes.versions) }
            }
        }
        // Loaded to-manys that may have gained inserted objects read again when next touched.
        if !changes.inserted.isEmpty { invalidateToMany(towards: entityIndexes(receiving: changes.inserted)) }
        // Observers (a fetched results controller placing the new objects) fault the new
        // objects in from the rows the save wrote, not from SQLite (see `fireFault`), unless
        // a change set of a later commit was merged first: the updates it brought to objects
        // not held here were passed over, so those rows may be older than what this context
        // was told.
        if noteCommits(of: changes), !changes.savedInserts.isEmpty, mayFillFromSavedInserts(of: changes) {
            mergingChanges = changes
            mergingLookup = changes.savedInserts.count > 1 ? SavedInsertsLookup(changes.savedInserts) : nil
            defer { mergingChanges = nil; mergingLookup = nil }   // a merge an observer starts meanwhile ends this one's too
            publish(changes, children: forChildren)
        } else {
            publish(changes, children: forChildren)
        }
    }

    /// Applies a merged update to a registered object: a fault only follows a changed to-one
    /// with its loaded inverses (it reads its row when fired); a filled object takes the new
    /// values of every property it has not edited itself.
    private func mergeUpdate(_ values: [String: PropertyValue], into object: ManagedObject, id: ObjectID, versions: [ObjectID: Int64]) {
        guard !object.lifecycle.isDeleted else { return }
        let entity = object.entity
        if object.lifecycle.isFault {
            // The fault reads its row when fired; the loaded to-manys of its old and new
            // partners follow a merged to-one now (edited ones too: their committed
            // membership with them, so a rollback restores what the store holds).
            for (key, value) in values {
                guard case .relationship(let r)? = entity.propertyIndex[key], !entity.relationships[r].isToMany else { continue }
                let target: ObjectID? = if case .objectID(let id) = value { id } else { nil }
                adoptToOne(object, at: r, target: target, previous: nil)
            }
            return
        }
        for (key, value) in values {
            switch entity.propertyIndex[key] {
            case .attribute(let i)?:
                let editedHere = object.changedProperties.contains(i)
                if object.committedAttributes != nil { object.committedAttributes?[i] = value }
                if !editedHere { object.attributeValues[i] = value }
            case .relationship(let r)?:
                let bit = entity.attributes.count + r
                let editedHere = object.changedProperties.contains(bit)
                let incoming: RelationValue
                if case .objectID(let target) = value { incoming = .toOneID(target) } else if entity.relationships[r].isToMany { incoming = .unloaded } else { incoming = .toOneID(nil) }
                // A kept to-many edit keeps its committed membership: the save writes the
                // pairs it added and removed against it (the incoming ones are stored already).
                if object.committedRelations[r] != nil, !entity.relationships[r].isToMany { object.committedRelations[r] = incoming }
                if !editedHere {
                    let previous = object.relationValues[r].loadedToOneTarget   // (this one only, not a table of all)
                    object.relationValues[r] = incoming
                    // A merged to-one brings the loaded inverses of its old and new partners along.
                    if case .toOneID(let target) = incoming { adoptToOne(object, at: r, target: target, previous: previous ?? nil) }
                }
            case nil:
                continue
            }
        }
        if let version = versions[id] { object.rowVersion = version }
    }

    /// The entities (and their superentities) that objects of `inserted` belong to: each
    /// entity's list made once, not once per object.
    private func entityIndexes(receiving inserted: Set<ObjectID>) -> Set<Int> {
        var indexes = Set<Int>()
        var seen = Set<Int>()
        var last: EntityDescription?
        for id in inserted where id.entity !== last {
            last = id.entity
            if seen.insert(id.entity.index).inserted { indexes.formUnion(id.entity.selfAndSuperentityIndexes(in: model)) }
        }
        return indexes
    }

    /// Drops deleted objects: out of the context, and out of every loaded relationship of
    /// every object it holds (one pass over the registered objects, whatever their views of
    /// the relationships were — loaded early, or kept as local edits).
    func forget(_ objects: [ManagedObject]) {
        guard !objects.isEmpty else { return }
        let gone = Set(objects.map(ObjectIdentifier.init))
        let goneIDs = Set(objects.map(\.objectID))
        /// `value` without the gone objects, or `nil` when it holds none of them.
        func without(_ value: RelationValue) -> RelationValue? {
            switch value {
            case .toOne(let target?) where gone.contains(ObjectIdentifier(target)) || goneIDs.contains(target.objectID):
                return .toOne(nil)
            case .toOneID(let id?) where goneIDs.contains(id):
                return .toOne(nil)
            case .toMany(let members) where members.contains(where: { gone.contains(ObjectIdentifier($0)) || goneIDs.contains($0.objectID) }):
                return .toMany(members.filter { !gone.contains(ObjectIdentifier($0)) && !goneIDs.contains($0.objectID) })
            default:
                return nil
            }
        }
        registry.forEachObject { candidate in
            guard !candidate.lifecycle.isFault, !gone.contains(ObjectIdentifier(candidate)) else { return }
            for (index, value) in candidate.relationValues.enumerated() {
                if let kept = without(value) { candidate.relationValues[index] = kept }
            }
            // The committed values too: a rollback restores them.
            for (index, value) in candidate.committedRelations {
                if let kept = without(value) { candidate.committedRelations[index] = kept }
            }
        }
        for object in objects {
            unlink(object.objectID)
            if registry[object.objectID] === object { registry[object.objectID] = nil }
            pending.forget(object)
            object.lifecycle.isDeleted = true
            object.detachFromContext()
        }
    }

    /// Marks unchanged, loaded to-many relationships pointing at the given entities as unloaded.
    /// Every registered object is visited (a merge into a main context that holds a 100 000-row
    /// list visits 100 000) unless no registered object's entity has such a relationship (the
    /// registry counts its objects by entity); the relationships to look at are found once per
    /// entity, and an object of an entity without any costs one array read.
    func invalidateToMany(towards entities: Set<Int>) {
        var toManys = [[Int]](repeating: [], count: model.entities.count)   // by entity index: relationship indexes
        var any = false   // an object is registered whose entity has such a relationship
        for entity in model.entities {
            for (index, relationship) in entity.relationships.enumerated()
            where relationship.isToMany && entities.contains(relationship.destinationIndex) {
                toManys[entity.index].append(index)
                any = any || registry.holds(entityAt: entity.index)
            }
        }
        guard any else { return }
        registry.forEachObject { object in
            guard !object.lifecycle.isFault else { return }
            let entity = object.entity
            guard toManys.indices.contains(entity.index) else { return }   // every registered object's entity is the model's
            for index in toManys[entity.index] where !object.changedProperties.contains(entity.attributes.count + index) {
                if case .toMany = object.relationValues[index] { object.relationValues[index] = .unloaded }
            }
        }
    }

    /// Replaces temporary IDs by permanent ones: in the registry, in objects, in unresolved to-ones.
    func applyPermanentIDs(_ mapping: [ObjectID: ObjectID]) {
        var mapping = mapping
        // A root context reads only the store, so the only temporary IDs it can hold are its
        // own registered objects': another context's new IDs (an importer's save merged into
        // the main context) concern nothing here, and walking every object for them would make
        // each merge cost O(registered objects).
        if parent == nil {
            mapping = registry.registeredEntries(of: mapping)
            if mapping.isEmpty { return }
        }
        // A mapping arrives by deposit and again with the change set that announced it.
        mapping = registry.unknown(mapping)
        if mapping.isEmpty { return }
        // Remembered for the children that may still name an object by its temporary ID, and
        // for this context's own objects. A context without children remembers only the IDs
        // of objects it holds: the rest (another context's new objects: a main context that
        // follows a million-object import gets a million of them) are rewritten below in
        // loaded to-ones and hints, and nothing here names them afterwards.
        if children.withLock({ $0.contains { $0.context != nil } }) {
            registry.remember(mapping)
        } else {
            foldPointers()   // logged hints naming a temporary ID are filed under it, then relinked below
            registry.remember(registry.registeredEntries(of: mapping))
        }
        var displaced: [ObjectIdentifier: ManagedObject] = [:]   // an instance under the new ID already → the kept one
        for (temporary, permanent) in mapping {
            relink(from: temporary, to: permanent)
            // A parent may have named the object by its new ID before this context learned it,
            // so a fault may already stand for it: keep the object that has the state.
            guard let (object, earlier) = registry.move(from: temporary, to: permanent), let earlier else { continue }
            displaced[ObjectIdentifier(earlier)] = object
            earlier.detachFromContext()
        }
        if !displaced.isEmpty { substitute(displaced) }
        registry.forEachObject { object in
            guard !object.lifecycle.isFault else { return }
            for (index, value) in object.relationValues.enumerated() {
                if case .toOneID(let id?) = value, let permanent = mapping[id] { object.relationValues[index] = .toOneID(permanent) }
            }
            for (index, value) in object.committedRelations {
                if case .toOneID(let id?) = value, let permanent = mapping[id] { object.committedRelations[index] = .toOneID(permanent) }
            }
        }
    }

    /// Replaces references to displaced instances by the kept ones in every loaded relationship.
    private func substitute(_ displaced: [ObjectIdentifier: ManagedObject]) {
        registry.forEachObject { candidate in
            guard !candidate.lifecycle.isFault else { return }
            for (index, value) in candidate.relationValues.enumerated() {
                switch value {
                case .toOne(let target?):
                    if let kept = displaced[ObjectIdentifier(target)] { candidate.relationValues[index] = .toOne(kept) }
                case .toMany(let members) where members.contains(where: { displaced[ObjectIdentifier($0)] != nil }):
                    candidate.relationValues[index] = .toMany(OrderedSet(members.map { displaced[ObjectIdentifier($0)] ?? $0 }))
                    for member in members { if let kept = displaced[ObjectIdentifier(member)] { candidate.noteHeld(kept, through: index) } }
                default:
                    continue
                }
            }
        }
    }
}

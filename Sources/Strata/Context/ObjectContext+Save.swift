import OrderedCollections

extension ObjectContext {
    /// Saves every insert, update and delete to the store in one SQLite transaction.
    ///
    /// Before writing, `willSave()` runs on each changed object, then validation: required
    /// values, values that failed to encode, `.deny` delete rules and the objects' own
    /// `validateFor…` hooks. Any failure throws a typed error naming the object and key, and
    /// nothing is written. A row changed in the store since it was read is a `.conflict`
    /// (optimistic locking), as is an insert that collides with a unique value.
    ///
    /// For example:
    /// ```swift
    /// try await context.perform { try context.save() }
    /// ```
    public func save() throws(StrataError) {
        checkQueue()
        guard let batch = try prepareSave() else { return }
        if let parent {
            try push(batch, to: parent)
        } else {
            // A large save on main: its report's dictionaries are made on a second core while
            // SQLite writes (a save that throws drops them).
            let reported = ChangedValuesInParallel.start(for: batch.updated)
            let outcome = try coordinator.save(batch, policy: mergePolicy, origin: saveOrigin) { [registry] in registry[$0] != nil }
            let changes = outcome.changeSet(for: batch, updatedValues: reported?.finish())
            didWrite(batch, outcome, changes)
            let count = batch.changeCount   // (read before the batch is consumed)
            LargeValueRelease.release((consume batch, consume changes), changes: count)
        }
    }

    /// What a save does before it writes: `willSave()`, validation, and the change batch
    /// (told to will-save observers). `nil` when there is nothing to save.
    func prepareSave() throws(StrataError) -> ChangeBatch? {
        catchUpPermanentIDs()
        processPendingChangesIfTracked()
        guard hasChanges else { return nil }
        announceWillSave()
        try validatePendingChanges()
        let batch = changeBatch()
        observers.publishWillSave(batch)
        return batch
    }

    /// Who a root context's saves are recorded as in the store's history.
    var saveOrigin: SaveOrigin { SaveOrigin(author: transactionAuthor, contextName: name) }

    /// What a root context does once the store wrote `batch`: the objects take their new IDs
    /// and versions, and the change set goes to observers, children and the other contexts.
    func didWrite(_ batch: ChangeBatch, _ outcome: SaveOutcome, _ changes: ChangeSet) {
        _ = noteCommits(of: changes)   // its own commit: older change sets merged later do not fill faults
        mergingChanges = nil           // nor does a merge this save was made inside (it may have changed their rows)
        mergingLookup = nil
        // Before didSave clears the pending marks: a child that then reads the store
        // directly (nothing pending above it) finds the new IDs in its inbox.
        depositPermanentIDsBelow(changes.permanentIDs)
        didSave(batch, outcome)
        publish(changes)
        coordinator.publishSave(changes, from: saveSubscriber)
    }

    /// Calls `willSave()` on every pending object, then on each object those calls made
    /// pending, until a round makes none.
    ///
    /// The first round walks the pending sets as they are; only when `willSave()` changed them
    /// does it remember whom it told (a set of every pending object cost about 850
    /// instructions an object, more than the save's validation of it).
    private func announceWillSave() {
        let told = pending
        for object in told.inserted { object.willSave() }
        for object in told.updated { object.willSave() }
        for object in told.deleted { object.willSave() }
        // Unchanged sets still share their storage with `told`: each comparison is one check.
        guard pending.inserted != told.inserted || pending.updated != told.updated || pending.deleted != told.deleted else { return }
        var announced = Set(told.all.map(ObjectIdentifier.init))
        while true {
            let fresh = pending.all.filter { announced.insert(ObjectIdentifier($0)).inserted }
            if fresh.isEmpty { break }
            for object in fresh { object.willSave() }
        }
    }

    /// The pending changes as values, in the order of the pending sets.
    func changeBatch() -> ChangeBatch {
        ChangeBatch(inserted: pending.inserted.map { $0.insertChange() }, updated: pending.updated.map { $0.updateChange() }, deleted: pending.deleted.map { $0.deletion() })
    }

    private func validatePendingChanges() throws(StrataError) {
        for object in pending.inserted { try validate(object, hook: object.validateForInsert) }
        for object in pending.updated { try validate(object, hook: object.validateForUpdate) }
        for object in pending.deleted {
            for (index, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
                let targets: [ManagedObject] = relationship.isToMany ? Array(object.toMany(at: index)) : (object.toOne(at: index).map { [$0] } ?? [])
                if let target = targets.first(where: { !$0.lifecycle.isDeleted }) {
                    throw StrataError(.deleteDenied, "\(object.entity.name) \(object.objectID) cannot be deleted while its \(relationship.name) holds \(target.objectID).",
                                      entity: object.entity.name, key: relationship.name, objectID: object.objectID)
                }
            }
            try runHook(object.validateForDelete, object)
        }
    }

    private func validate(_ object: ManagedObject, hook: () throws -> Void) throws(StrataError) {
        let entity = object.entity
        let anyErrors = !object.valueErrors.isEmpty   // (the common case looks nothing up)
        if anyErrors {
            if let missing = object.valueErrors[-1] { throw missing }
            for (slot, error) in object.valueErrors where slot >= 0 && error.code != .undecodableValue { throw error }
        }
        // The entity's per-slot tables, not its attribute descriptions: copying a whole
        // description per attribute per object cost more than the checks themselves. The
        // values are read through a buffer, not the array's subscript (which copied each
        // element: about a tenth of validation's instructions).
        let names = entity.attributeNames, types = entity.attributeTypes, optional = entity.attributeIsOptional
        let checksEvery = object.lifecycle.isInserted
        let changed = object.changedProperties
        try object.attributeValues.withUnsafeBufferPointer { (values) throws(StrataError) in
            for i in types.indices {
                // An updated object's unchanged values came from the store (a read, or a merge
                // of a save): only its changed ones can be values the store cannot hold.
                let checks = checksEvery || changed.contains(i)
                if values[i].isNull {
                    // A stored value that did not decode reads as nil but is not written: not missing.
                    if !optional[i] && (!anyErrors || object.valueErrors[i] == nil) {
                        throw StrataError(.validation, "\(entity.name).\(names[i]) is required but nil.", entity: entity.name, key: names[i], objectID: object.objectID)
                    }
                } else if checks, let problem = values[i].storageProblem(for: types[i]) {
                    throw StrataError(.unencodableValue, "\(entity.name).\(names[i]) cannot be stored: \(problem).", entity: entity.name, key: names[i], objectID: object.objectID)
                }
                if checks {
                    // Called in place, not through `runHook`: no closure and no key copied per value.
                    do { try object.validateValue(values[i], forKey: names[i]) } catch {
                        throw Self.hookError(error, object, key: names[i])
                    }
                }
            }
        }
        for i in entity.requiredToOneSlots where object.toOne(at: i) == nil {
            let name = entity.relationshipNames[i]
            throw StrataError(.validation, "\(entity.name).\(name) is required but nil.", entity: entity.name, key: name, objectID: object.objectID)
        }
        try runHook(hook, object)
    }

    private func runHook(_ hook: () throws -> Void, _ object: ManagedObject) throws(StrataError) {
        do { try hook() } catch {
            throw Self.hookError(error, object, key: nil)
        }
    }

    /// What a validation hook's `error` is reported as: a ``StrataError`` as it is, any other
    /// error as `.validation` naming the object (and the key, for a value's hook).
    private static func hookError(_ error: any Error, _ object: ManagedObject, key: String?) -> StrataError {
        if let error = error as? StrataError { return error }
        let what = key.map { "\(object.entity.name).\($0) of \(object.objectID)" } ?? "\(object.entity.name) \(object.objectID)"
        return StrataError(.validation, "\(what) failed validation: \(error)", entity: object.entity.name, key: key, objectID: object.objectID, underlying: error)
    }

    /// Brings the objects in line with what the store wrote (`batch` was built from the
    /// pending sets, in their order).
    private func didSave(_ batch: ChangeBatch, _ outcome: SaveOutcome) {
        let anyVersions = !outcome.versions.isEmpty
        for (object, (change, key)) in zip(pending.inserted, zip(batch.inserted, outcome.insertedKeys)) {
            let temporary = change.id
            if let key {
                let permanent = ObjectID(entity: temporary.entity, key: key)
                registry.rename(object, from: temporary, to: permanent)
                relink(from: temporary, to: permanent)
            }
            object.lifecycle.isInserted = false
            object.rowVersion = anyVersions ? outcome.versions[temporary] ?? 1 : 1    // inserted rows start at version 1
        }
        var gone: [ManagedObject] = []
        for object in pending.updated {
            if outcome.vanished.contains(object.objectID) { gone.append(object); continue }
            object.rowVersion = outcome.versions[object.objectID] ?? object.rowVersion + 1
        }
        for (id, _, version) in outcome.nullified {
            // The clearing ran after this save's own writes: its version is the row's latest.
            if let partner = registry[id], !partner.lifecycle.isFault { partner.rowVersion = version }
        }
        if !outcome.refreshed.isEmpty {
            let pairs = zip(pending.inserted, batch.inserted.map(\.id)) + pending.updated.map { ($0, $0.objectID) } + pending.deleted.map { ($0, $0.objectID) }
            for (object, id) in pairs {
                guard let row = outcome.refreshed[id], !object.lifecycle.isDeleted || outcome.undeleted.contains(id) else { continue }
                object.lifecycle.isDeleted = false
                let previous = loadedToOneTargets(object)
                object.take(row)
                adoptRowRelations(object, previous: previous)
            }
        }
        takeDerivedValues(outcome.derived)
        finishSave(forgetting: pending.deleted.filter { !outcome.undeleted.contains($0.objectID) } + gone)
    }

    /// Gives the loaded objects the derived values the store computed in the save (faults read
    /// theirs when they fire). The app never sets a derived attribute, so none is an edit.
    private func takeDerivedValues(_ derived: [ObjectID: [(slot: Int, value: PropertyValue)]]) {
        for (id, values) in derived {
            guard let object = registry[id], !object.lifecycle.isFault else { continue }
            for (slot, value) in values {
                object.attributeValues[slot] = value
                if object.committedAttributes != nil { object.committedAttributes?[slot] = value }
            }
        }
    }

    /// The one end of a save, to the store or into a parent: nothing is pending any more,
    /// `gone` objects are forgotten, and every saved object hears `didSave()`.
    func finishSave(forgetting gone: [ManagedObject]) {
        let saved = pending.all
        undoHistory?.removeAllActions()   // the history ends at a save (see ContextUndoManager)
        for object in pending.inserted { object.lifecycle.isInserted = false }
        for object in saved { object.clearChanges() }
        pending.removeAll()
        clearPendingIfNone()
        forget(gone)
        for object in saved { object.didSave() }
    }

    /// Discards every unsaved change: inserted objects go, updated and deleted ones get their
    /// saved values and relationships back.
    ///
    /// For example:
    /// ```swift
    /// note.title = "Oops"
    /// context.rollback()       // note.title is what was saved
    /// ```
    public func rollback() {
        checkQueue()
        undoHistory?.removeAllActions()
        let touched = Array(pending.updated) + Array(pending.deleted) + Array(registry.all.filter { $0.lifecycle.hasChanges && !$0.lifecycle.isInserted })
        for object in pending.inserted {
            registry[object.objectID] = nil
            object.lifecycle.isDeleted = true
        }
        // Restored to-ones, with the targets they replace: a merge that kept an edit may have
        // moved the committed value (to what the store now says) without its partners' sides.
        var restoredToOnes: [(object: ManagedObject, index: Int, target: ObjectID?, previous: ObjectID?)] = []
        for object in touched {
            for restored in object.revertChanges() { restoredToOnes.append((object, restored.index, restored.target, restored.previous)) }
            object.lifecycle.isDeleted = false
        }
        let droppedInserts = Array(pending.inserted)
        pending.removeAll()
        clearPendingIfNone()
        // Out of every loaded relationship too: one read since (a to-many loaded after a merge
        // dropped its edit) may list them without being an edited object.
        forget(droppedInserts)
        // The restored to-ones are the truth (what was last saved or merged): their loaded
        // inverses follow, as for a row read (see ObjectContext+Inverses).
        for restored in restoredToOnes where restored.object.storageOwner === self {
            adoptToOne(restored.object, at: restored.index, target: restored.target, previous: restored.previous)
        }
    }

    /// Forgets every object: the context is as new. Objects obtained before are unusable, and
    /// so are temporary IDs of objects it saved, unless a child context is alive (children may
    /// still name objects by them).
    public func reset() {
        checkQueue()
        undoHistory?.removeAllActions()
        for object in registry.removeAll() { object.detachFromContext() }
        forgetLinks()
        // An import context reset after each save would otherwise keep one entry per object
        // it ever saved (a million-object import: a map of a million pairs).
        if children.withLock({ $0.allSatisfy { $0.context == nil } }) { registry.forgetTemporaryIDs() }
        pending.removeAll()
        clearPendingIfNone()
    }

    /// Re-reads `object` from the store. With `mergeChanges: false` its unsaved changes are
    /// discarded and it becomes a fault; with `true` they are kept on top of the fresh values.
    ///
    /// For example:
    /// ```swift
    /// context.refresh(note, mergeChanges: false)
    /// ```
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        checkQueue()
        catchUpPermanentIDs()
        guard object.storageOwner === self, !object.lifecycle.isInserted else { return }
        if !mergeChanges || !object.lifecycle.hasChanges {
            turnIntoFault(object)
            // Its next fault reads the store, whatever the staleness interval (Core Data may
            // answer it from the row cache: the old values a refresh was meant to replace).
            if !object.objectID.isTemporary { coordinator.rowCache.evict([object.objectID]) }
            return
        }
        guard let row = try? source.rows(of: object.entity, ids: [object.objectID], staleness: 0).first else { return }
        take(row, keepingChangesOf: object)
    }
}

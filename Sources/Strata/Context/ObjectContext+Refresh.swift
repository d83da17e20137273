extension ObjectContext {
    /// Re-reads every object this context holds, as Core Data's `refreshAllObjects()` does:
    /// objects without unsaved changes become faults (their values are read again on next
    /// access, and their memory is given back meanwhile); objects with unsaved changes keep
    /// them on top of fresh values (`refresh(_:mergeChanges: true)`); inserted objects are
    /// left as they are.
    ///
    /// For example:
    /// ```swift
    /// // Another process wrote to the file:
    /// if try coordinator.hasExternalChanges() { context.refreshAllObjects() }
    /// ```
    public func refreshAllObjects() {
        checkQueue()
        catchUpPermanentIDs()
        for object in registry.all where !object.lifecycle.isInserted && !object.lifecycle.isDeleted {
            refresh(object, mergeChanges: true)
        }
    }

    /// Discards `object`'s values and unsaved changes: it is a fault again, read anew on next
    /// access. Calls `willTurnIntoFault()` and `didTurnIntoFault()` when it held values.
    func turnIntoFault(_ object: ManagedObject) {
        let wasLoaded = !object.lifecycle.isFault
        if wasLoaded { object.willTurnIntoFault() }
        if object.lifecycle.hasChanges {
            _ = object.revertChanges()
            pending.updated.remove(object)
        }
        object.lifecycle.isFault = true
        object.rowVersion = -1   // a refreshed fault reads the store, never a merge's saved rows
        object.attributeValues = []
        object.relationValues = []
        object.faultBatch = nil
        if wasLoaded { object.didTurnIntoFault() }
    }

    /// Puts `row`'s values into a loaded `object`, keeping the keys it changed and not saved.
    func take(_ row: RowSnapshot, keepingChangesOf object: ManagedObject) {
        let attributeCount = object.entity.attributes.count
        for i in 0..<attributeCount where !object.changedProperties.contains(i) {
            object.attributeValues[i] = row.attributes[i]
            object.valueErrors[i] = row.errors[i]
        }
        let previous = loadedToOneTargets(object)
        for i in object.entity.relationships.indices where !object.changedProperties.contains(attributeCount + i) {
            object.relationValues[i] = row.relationValues[i]
            if case .toOneID(let target) = row.relationValues[i] { adoptToOne(object, at: i, target: target, previous: previous[i] ?? nil) }
        }
        if object.lifecycle.hasChanges { object.committedAttributes = row.attributes }
        object.rowVersion = row.version
    }

    /// For `shouldRefreshRefetchedObjects`: the saved objects among `objects` that already
    /// held values before this fetch take the current rows.
    func refreshRefetched(_ objects: [ManagedObject], except fresh: [ManagedObject], entity: EntityDescription) throws(StrataError) {
        let new = Set(fresh.map(ObjectIdentifier.init))
        let held = objects.filter { !$0.lifecycle.isFault && !$0.lifecycle.isInserted && !$0.lifecycle.isDeleted && !new.contains(ObjectIdentifier($0)) }
        guard !held.isEmpty else { return }
        var byID: [ObjectID: RowSnapshot] = [:]
        for row in try source.rows(of: entity, ids: held.map(\.objectID), staleness: 0) { byID[row.id] = row }   // a fetch reads the store
        for object in held { if let row = byID[object.objectID] { take(row, keepingChangesOf: object) } }
    }
}

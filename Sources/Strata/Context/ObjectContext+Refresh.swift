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
        for object in Array(registry.objects.values) where !object.lifecycle.isInserted && !object.lifecycle.isDeleted {
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
        object.attributeValues = []
        object.relationValues = []
        object.faultBatch = nil
        if wasLoaded { object.didTurnIntoFault() }
    }
}

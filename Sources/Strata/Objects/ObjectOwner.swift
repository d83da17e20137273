/// What a managed object needs from the context that owns it. Objects defines it; Context
/// implements it, so that Objects never depends on Context.
protocol ObjectOwner: AnyObject {
    /// Whether ``checkAccess(_:)`` can trap: when false, an object's accesses skip it (it is
    /// read once, when the object gets its owner).
    var checksObjectAccess: Bool { get }
    /// Traps (in concurrency debug mode) when called off the storageOwner's queue.
    func checkAccess(_ object: ManagedObject)
    /// Reads the object's row (and its batch's) into storage. On failure the object keeps
    /// its fault state cleared and records the error in `loadError`.
    func fireFault(_ object: ManagedObject)
    /// The destinations of a to-many relationship, read from the store or parent.
    func loadToMany(_ object: ManagedObject, relationship: Int) -> [ManagedObject]
    /// The object registered for `id`, or a new fault for it.
    func resolve(_ id: ObjectID) -> ManagedObject
    /// Called before the first change to a saved object, so it can be tracked as updated.
    func objectWillChange(_ object: ManagedObject)
    /// Called before each change of property `property` (attributes first, then relationships)
    /// of an object whose `lifecycle.recordsUndo` is set, so the owner's undo manager can keep
    /// the value it had.
    func willChangeForUndo(_ object: ManagedObject, property: Int)
    /// Records that `holder`'s to-one `relationship` now points at `id`, so that the owner can
    /// find the loaded to-ones pointing at `id`'s object later (to-many memberships are filed on
    /// the member itself, see `ManagedObject.noteHeld(_:through:)`).
    func notePointer(to id: ObjectID, holder: ManagedObject, relationship: Int)
    /// The value of attribute `index` of an object whose storage has no values (a fault whose
    /// row could not be read, or a key-path probe): `.null` for a context; a key-path probe
    /// (`KeyPathProbe`) records the read and answers a recognisable value.
    func valueOfMissingAttribute(_ object: ManagedObject, at index: Int) -> PropertyValue
    /// Waits for the owner's save whose SQLite work runs off its queue and applies its outcome
    /// (called before an object of that save changes).
    func settleSave()
}

extension ObjectOwner {
    var checksObjectAccess: Bool { false }
    func valueOfMissingAttribute(_ object: ManagedObject, at index: Int) -> PropertyValue { .null }
    func settleSave() {}
}

extension ManagedObject {
    /// The context that holds this object, if it still exists.
    ///
    /// For example:
    /// ```swift
    /// try note.context?.save()
    /// ```
    public var context: ObjectContext? { storageOwner as? ObjectContext }
}

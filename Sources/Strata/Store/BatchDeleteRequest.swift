/// Deletes every stored object of an entity that matches a predicate, straight in SQLite,
/// without loading objects into a context, in chunks so that the write lock is never held
/// for long.
///
/// Each chunk of ``chunkSize`` rows is its own write transaction, so other writers get the
/// lock between chunks; a failure part-way leaves the earlier chunks deleted. Per chunk the
/// rows go, their many-to-many join rows go, and foreign keys in other tables that point at
/// them are set to nil. Delete rules are **not** applied beyond that: no cascade, no deny
/// (like Core Data's `NSBatchDeleteRequest`). See docs/batch-requests.md.
///
/// For example:
/// ```swift
/// let request = BatchDeleteRequest(entityName: "Note", predicate: try ObjectPredicate("rating == 0"))
/// let changes = try context.execute(request)   // changes.deleted: the IDs that went
/// ```
public struct BatchDeleteRequest: Sendable {
    /// The entity whose rows are deleted.
    ///
    /// ```swift
    /// var request = BatchDeleteRequest(entityName: "Note")
    /// request.entityName = "Tag"
    /// ```
    public var entityName: String
    /// Which rows to delete; `nil` deletes every row of the entity.
    ///
    /// ```swift
    /// request.predicate = .key("rating") == 0
    /// ```
    public var predicate: ObjectPredicate?
    /// How many rows each write transaction deletes (at least 1).
    ///
    /// ```swift
    /// request.chunkSize = 200   // shorter lock holds, more transactions
    /// ```
    public var chunkSize: Int

    /// Creates a request.
    ///
    /// ```swift
    /// let everything = BatchDeleteRequest(entityName: "Tag")
    /// ```
    public init(entityName: String, predicate: ObjectPredicate? = nil, chunkSize: Int = 1000) {
        self.entityName = entityName
        self.predicate = predicate
        self.chunkSize = chunkSize
    }
}

/// Sets the same values on every stored object of an entity that matches a predicate,
/// straight in SQLite, without loading objects into a context.
///
/// Keys are attributes, or to-one relationships whose foreign key lives in the entity's table
/// (give an `.objectID` of a saved object, or `.null`). Every matching row gets its version
/// bumped, so contexts holding those objects see a conflict if they save stale values. Run it
/// with `StoreCoordinator.execute(_:)` or `ObjectContext.execute(_:)` and merge the returned
/// ``ChangeSet`` into contexts that hold the objects.
///
/// For example:
/// ```swift
/// let request = BatchUpdateRequest(entityName: "Note", predicate: try ObjectPredicate("rating < %d", 3),
///                                  propertiesToUpdate: ["rating": .integer(3), "subtitle": .null])
/// let changes = try context.execute(request)   // changes.updated[id] == the new values
/// ```
public struct BatchUpdateRequest: Sendable {
    /// The entity whose rows are updated.
    ///
    /// ```swift
    /// var request = BatchUpdateRequest(entityName: "Note", propertiesToUpdate: [:])
    /// request.entityName = "Tag"
    /// ```
    public var entityName: String
    /// Which rows to update; `nil` updates every row of the entity.
    ///
    /// ```swift
    /// request.predicate = .key("title") == "draft"
    /// ```
    public var predicate: ObjectPredicate?
    /// The new values, by key (attributes and foreign-key to-ones only).
    ///
    /// ```swift
    /// request.propertiesToUpdate["title"] = .string("done")
    /// ```
    public var propertiesToUpdate: [String: PropertyValue]

    /// Creates a request.
    ///
    /// ```swift
    /// let all = BatchUpdateRequest(entityName: "Tag", propertiesToUpdate: ["label": .string("x")])
    /// ```
    public init(entityName: String, predicate: ObjectPredicate? = nil, propertiesToUpdate: [String: PropertyValue]) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
    }
}

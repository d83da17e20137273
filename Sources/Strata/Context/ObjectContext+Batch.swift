extension ObjectContext {
    /// Runs a batch update on this context's store. It bypasses the context: the context's
    /// objects keep their old values until the returned change set is merged or they are
    /// refreshed.
    ///
    /// For example:
    /// ```swift
    /// let changes = try await context.perform {
    ///     try context.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["rating": .integer(0)]))
    /// }
    /// ```
    public func execute(_ request: BatchUpdateRequest) throws(StrataError) -> ChangeSet {
        checkQueue()
        return try coordinator.execute(request)
    }

    /// Runs a chunked batch delete on this context's store. It bypasses the context: its
    /// objects for deleted rows stay registered until the returned change set is merged.
    ///
    /// For example:
    /// ```swift
    /// let changes = try await context.perform {
    ///     try context.execute(BatchDeleteRequest(entityName: "Note", predicate: .key("rating") == 0))
    /// }
    /// ```
    public func execute(_ request: BatchDeleteRequest) throws(StrataError) -> ChangeSet {
        checkQueue()
        return try coordinator.execute(request)
    }
}

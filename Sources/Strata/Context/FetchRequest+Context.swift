extension FetchRequest {
    /// Compiles the request against `context`'s model (see ``evaluator(for:)``).
    ///
    /// - Throws: `.invalidRequest` or `.malformedPredicate` for a request that does not fit the model.
    ///
    /// For example:
    /// ```swift
    /// let evaluator = try request.evaluator(in: context)
    /// if evaluator.matches(note) { print(evaluator.sortValues(of: note)) }
    /// ```
    public func evaluator(in context: ObjectContext) throws(StrataError) -> FetchEvaluator {
        try evaluator(for: context.model)
    }

    /// Whether `object` passes this request's entity and predicate (in memory; compiles the
    /// request each call — keep a ``FetchEvaluator`` for repeated use).
    ///
    /// For example:
    /// ```swift
    /// let isMatch = try FetchRequest<Note>(predicate: try ObjectPredicate("rating > 3")).evaluate(note, in: context)
    /// ```
    public func evaluate(_ object: ManagedObject, in context: ObjectContext) throws(StrataError) -> Bool {
        try evaluator(in: context).matches(object)
    }

    /// Whether `a` sorts before `b` under this request's order (in memory; compiles each call).
    ///
    /// For example:
    /// ```swift
    /// let first = try request.areInIncreasingOrder(a, b, in: context) ? a : b
    /// ```
    public func areInIncreasingOrder(_ a: ManagedObject, _ b: ManagedObject, in context: ObjectContext) throws(StrataError) -> Bool {
        try evaluator(in: context).areInIncreasingOrder(a, b)
    }
}

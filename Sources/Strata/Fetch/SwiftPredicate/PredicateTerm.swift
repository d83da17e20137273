/// What one part of a Swift `#Predicate` translates to, on the way to a ``PredicateNode``.
enum PredicateTerm {
    /// A condition. `optional` when it came through `?.` and is nil in Swift where a key on the
    /// way is nil (so `== false` of it is not its negation).
    case condition(PredicateNode, optional: Bool)
    /// A key path of the fetched object or of a `contains(where:)` element.
    case key(ModelKeyPath)
    /// A constant or captured value (`nil` is `.null`).
    case value(PropertyValue)
    /// A constant or captured collection (for `IN`).
    case values([PropertyValue])
    /// A range built in the predicate or captured: `lower...upper` or `lower..<upper`.
    indirect case range(lower: PredicateTerm, upper: PredicateTerm, closed: Bool)
}

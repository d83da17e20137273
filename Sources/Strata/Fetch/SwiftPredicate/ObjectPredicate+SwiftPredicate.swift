public import Foundation

extension ObjectPredicate {
    /// Translates a Swift `#Predicate` into the predicate the format syntax would give, so
    /// it runs as the same SQL (and in memory with the same answer).
    ///
    /// Key paths must be `@Attribute` or `@Relationship` properties (through to-ones with
    /// `?.`; `count`, `isEmpty`, `contains(_:)`, `contains(where:)` and `allSatisfy` on
    /// to-manys). Throws ``StrataError`` with code ``StrataError/Code/unsupportedPredicate``,
    /// naming the expression, for anything without an equivalent (arithmetic, a computed
    /// property, a ternary…); docs/predicates.md lists what translates.
    /// ```swift
    /// let minimum = 3
    /// let p = try ObjectPredicate(#Predicate<Note> { $0.rating >= minimum && $0.title.contains("x") })
    /// print(p)  // rating >= 3 AND title CONTAINS "x"
    /// ```
    public init<Root: ManagedObject>(_ predicate: Predicate<Root>) throws(StrataError) {
        self.init(node: try SwiftPredicateTranslator.translate(predicate))
    }
}

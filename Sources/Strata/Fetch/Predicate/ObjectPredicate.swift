/// A condition on objects of one entity, which Strata both compiles to SQL and evaluates in
/// memory with the same answer either way.
///
/// Write one in the NSPredicate format syntax, or build one in Swift:
/// ```swift
/// let a = try ObjectPredicate("title BEGINSWITH[c] %@ AND folder.name == %@", "he", "Inbox")
/// let b = ObjectPredicate.key("title").beginsWith("he", options: .caseInsensitive)
///     && .key("folder.name") == "Inbox"
/// ```
/// See docs/predicates.md for the syntax and the exact semantics (nil, numbers, strings).
public struct ObjectPredicate: Sendable, Hashable, CustomStringConvertible {
    /// The expression tree.
    let node: PredicateNode

    init(node: PredicateNode) { self.node = node }

    /// Parses a predicate in the NSPredicate format syntax, substituting `arguments` for
    /// `%@` (a value), `%K` (a key path), `%d`/`%i`/`%ld` (an integer) and `%f` (a double).
    ///
    /// Throws ``StrataError`` with code ``StrataError/Code/malformedPredicate`` and the
    /// character offset of the problem in ``StrataError/position``.
    /// ```swift
    /// let p = try ObjectPredicate("ANY tags.name ==[c] %@ AND rating > %d", "swift", 3)
    /// ```
    public init(_ format: String, _ arguments: Any?...) throws(StrataError) {
        try self.init(format: format, arguments: arguments)
    }

    /// Parses a predicate in the NSPredicate format syntax with an array of arguments.
    /// ```swift
    /// let p = try ObjectPredicate(format: "%K IN %@", arguments: ["rating", [1, 2, 3]])
    /// ```
    public init(format: String, arguments: [Any?]) throws(StrataError) {
        var parser = PredicateParser(format: format, arguments: arguments)
        self.node = try parser.parse()
    }

    /// The predicate every object satisfies (`TRUEPREDICATE`).
    /// ```swift
    /// let all = ObjectPredicate.truePredicate
    /// ```
    public static let truePredicate = ObjectPredicate(node: .constant(true))

    /// The predicate no object satisfies (`FALSEPREDICATE`).
    /// ```swift
    /// let nothing = ObjectPredicate.falsePredicate
    /// ```
    public static let falsePredicate = ObjectPredicate(node: .constant(false))

    /// The predicate in the format syntax; parsing it gives back an equivalent predicate
    /// (except for values that have no literal form: data, object IDs; see docs/predicates.md).
    /// ```swift
    /// print(try ObjectPredicate("a = 1 and not b = 2"))  // a == 1 AND NOT b == 2
    /// ```
    public var description: String { PredicateFormatter.format(node) }
}

extension ObjectPredicate {
    /// Modifiers of string comparisons: `[c]`, `[d]`, `[cd]`.
    ///
    /// Both sides are folded with Foundation's `folding(options:locale:)` (locale nil)
    /// before comparing, in memory and in SQL alike.
    /// ```swift
    /// let p = ObjectPredicate.key("name").contains("e", options: [.caseInsensitive, .diacriticInsensitive])
    /// ```
    public struct StringOptions: OptionSet, Sendable, Hashable {
        /// The option bits (`1` case-insensitive, `2` diacritic-insensitive), as passed to the
        /// SQLite functions.
        /// ```swift
        /// let bits = ObjectPredicate.StringOptions.caseInsensitive.rawValue  // 1
        /// ```
        public let rawValue: Int
        /// Creates options from their raw bits.
        /// ```swift
        /// let cd = ObjectPredicate.StringOptions(rawValue: 3)
        /// ```
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// `[c]`: compare without regard to case (`"ABC" ==[c] "abc"`).
        public static let caseInsensitive = StringOptions(rawValue: 1)
        /// `[d]`: compare without regard to diacritics (`"é" ==[d] "e"`).
        public static let diacriticInsensitive = StringOptions(rawValue: 2)
    }
}

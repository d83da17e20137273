extension ObjectPredicate {
    /// Starts a comparison on `keyPath`.
    /// ```swift
    /// let p = ObjectPredicate.key("folder.name") == "Inbox"
    /// ```
    public static func key(_ keyPath: String) -> PredicateKey { PredicateKey.key(keyPath) }

    /// Starts an `ANY` comparison on a to-many key path.
    /// ```swift
    /// let p = ObjectPredicate.any("tags.name") == "swift"
    /// ```
    public static func any(_ keyPath: String) -> PredicateKey { PredicateKey.any(keyPath) }

    /// Starts an `ALL` comparison on a to-many key path.
    /// ```swift
    /// let p = ObjectPredicate.all("tags.name").beginsWith("s")
    /// ```
    public static func all(_ keyPath: String) -> PredicateKey { PredicateKey.all(keyPath) }

    /// Starts a `NONE` comparison on a to-many key path.
    /// ```swift
    /// let p = ObjectPredicate.none("tags.name") == "draft"
    /// ```
    public static func none(_ keyPath: String) -> PredicateKey { PredicateKey.none(keyPath) }

    /// Starts a comparison on the number of objects of the to-many `keyPath` that pass
    /// `predicate` (`SUBQUERY(keyPath, $variable, predicate).@count`).
    /// ```swift
    /// let p = ObjectPredicate.subquery("tags", "$t", .key("$t.name").beginsWith("s")) >= 2
    /// ```
    public static func subquery(_ keyPath: String, _ variable: String, _ predicate: ObjectPredicate) -> PredicateKey {
        PredicateKey.subquery(keyPath, variable, predicate)
    }

    /// Both predicates (`AND`).
    /// ```swift
    /// let p = ObjectPredicate.key("a") == 1 && .key("b") == 2
    /// ```
    public static func && (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        and([lhs, rhs])
    }

    /// Either predicate (`OR`).
    /// ```swift
    /// let p = ObjectPredicate.key("a") == 1 || .key("b") == 2
    /// ```
    public static func || (lhs: ObjectPredicate, rhs: ObjectPredicate) -> ObjectPredicate {
        or([lhs, rhs])
    }

    /// The opposite predicate (`NOT`).
    /// ```swift
    /// let p = !(ObjectPredicate.key("title") == nil)
    /// ```
    public static prefix func ! (predicate: ObjectPredicate) -> ObjectPredicate {
        ObjectPredicate(node: .not(predicate.node))
    }

    /// All of `predicates` (true when empty).
    /// ```swift
    /// let p = ObjectPredicate.and([.key("a") == 1, .key("b") == 2, .key("c") == 3])
    /// ```
    public static func and(_ predicates: [ObjectPredicate]) -> ObjectPredicate {
        combine(predicates, empty: true) { if case .and(let nodes) = $0 { nodes } else { nil } } wrap: { .and($0) }
    }

    /// Any of `predicates` (false when empty).
    /// ```swift
    /// let p = ObjectPredicate.or([.key("a") == 1, .key("b") == 2])
    /// ```
    public static func or(_ predicates: [ObjectPredicate]) -> ObjectPredicate {
        combine(predicates, empty: false) { if case .or(let nodes) = $0 { nodes } else { nil } } wrap: { .or($0) }
    }

    /// Flattens nested ANDs (or ORs) so that `a && b && c` is one node, as the parser makes it.
    private static func combine(
        _ predicates: [ObjectPredicate], empty: Bool, children: (PredicateNode) -> [PredicateNode]?,
        wrap: ([PredicateNode]) -> PredicateNode
    ) -> ObjectPredicate {
        var nodes: [PredicateNode] = []
        for p in predicates { nodes += children(p.node) ?? [p.node] }
        if nodes.isEmpty { return ObjectPredicate(node: .constant(empty)) }
        return ObjectPredicate(node: nodes.count == 1 ? nodes[0] : wrap(nodes))
    }
}

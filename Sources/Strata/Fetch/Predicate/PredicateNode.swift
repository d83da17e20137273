/// The expression tree behind ``ObjectPredicate``, as parsed or built (not yet resolved
/// against an entity).
indirect enum PredicateNode: Sendable, Hashable {
    /// `TRUEPREDICATE` / `FALSEPREDICATE`.
    case constant(Bool)
    case not(PredicateNode)
    case and([PredicateNode])
    case or([PredicateNode])
    case comparison(PredicateComparison)
}

/// One leaf: `[quantifier] keyPath operator[options] value`.
struct PredicateComparison: Sendable, Hashable {
    /// `ANY`/`SOME`, `ALL` or `NONE`; nil when none was written (implicit ANY on a to-many).
    var quantifier: PredicateQuantifier?
    /// The key path's segments, e.g. `["folder", "name"]` or `["tags", "@count"]`.
    var keyPath: [String]
    var op: PredicateOperator
    var options: ObjectPredicate.StringOptions
    var value: PredicateOperand
    /// Set for `SUBQUERY(keyPath, $variable, predicate).@count op value`: the comparison is of
    /// the number of `keyPath`'s objects passing `predicate`.
    var subquery: PredicateSubquery? = nil
}

/// `SUBQUERY(collection, $variable, predicate)`: the objects of the to-many key path that
/// pass `predicate`, whose key paths start with `$variable`.
struct PredicateSubquery: Sendable, Hashable {
    /// The variable's name with its `$`, e.g. `"$n"`.
    var variable: String
    var predicate: PredicateNode
}

/// The quantifier of a comparison over a to-many key path.
enum PredicateQuantifier: String, Sendable, Hashable {
    case any = "ANY", all = "ALL", noneMatch = "NONE"
}

/// The right-hand side of a comparison.
enum PredicateOperand: Sendable, Hashable {
    /// One value (`nil` is `.null`).
    case single(PropertyValue)
    /// An aggregate `{a, b, c}` (for `IN` and `BETWEEN`).
    case list([PropertyValue])
    /// Another key path of the same object (`rank > priority`); empty for `SELF`.
    case keyPath([String])
    /// A `$variable` (its name without `$`) that ``ObjectPredicate/withSubstitutionVariables(_:)``
    /// replaces by a value.
    case variable(String)
}

/// A comparison operator.
enum PredicateOperator: String, Sendable, Hashable, CaseIterable {
    case equalTo = "=="
    case notEqualTo = "!="
    case lessThan = "<"
    case lessThanOrEqualTo = "<="
    case greaterThan = ">"
    case greaterThanOrEqualTo = ">="
    case between = "BETWEEN"
    case `in` = "IN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"

    /// Whether this is one of the string operators (BEGINSWITH … MATCHES).
    var isStringOperator: Bool {
        switch self {
        case .beginsWith, .endsWith, .contains, .like, .matches: true
        default: false
        }
    }

    /// Whether this is `<`, `<=`, `>` or `>=`.
    var isOrdering: Bool {
        switch self {
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo: true
        default: false
        }
    }

    /// The operator with its operands swapped (`5 < x` is `x > 5`); nil if it has no mirror.
    var mirrored: PredicateOperator? {
        switch self {
        case .equalTo, .notEqualTo: self
        case .lessThan: .greaterThan
        case .lessThanOrEqualTo: .greaterThanOrEqualTo
        case .greaterThan: .lessThan
        case .greaterThanOrEqualTo: .lessThanOrEqualTo
        default: nil
        }
    }
}

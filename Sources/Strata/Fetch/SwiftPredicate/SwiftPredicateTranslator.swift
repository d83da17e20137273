import Foundation

/// A Foundation predicate expression that Strata can translate (each supported
/// `PredicateExpressions` type conforms, in the `PredicateExpressions+*.swift` files).
protocol StrataTranslatableExpression {
    /// This expression as a term, its children translated by `translator`.
    func strataTerm(_ translator: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm
}

/// Walks the expression tree of a Foundation `Predicate` and builds the same ``PredicateNode``
/// the format syntax would give (see docs/predicates.md, "Swift's #Predicate").
struct SwiftPredicateTranslator {
    /// The entity name, for errors.
    let entityName: String
    /// What each variable stands for: the fetched object is `[]`; a `contains(where:)` element
    /// is its SUBQUERY variable (`["$e1"]`); a `?.` variable is the key path it unwraps.
    private var variables: [PredicateExpressions.VariableID: ModelKeyPath] = [:]
    private var subqueryCount = 0

    init(entityName: String, root: PredicateExpressions.VariableID) {
        self.entityName = entityName
        variables[root] = ModelKeyPath(keys: [], terminal: .object)
    }

    /// The translation of a whole predicate's expression, as a condition.
    static func translate<Root: ManagedObject>(_ predicate: Predicate<Root>) throws(StrataError) -> PredicateNode {
        var translator = SwiftPredicateTranslator(entityName: Root.entityName, root: predicate.variable.key)
        return try translator.condition(predicate.expression)
    }

    // MARK: Children

    /// The term of a child expression; `.unsupportedPredicate` when its type has no translation.
    mutating func term(_ expression: Any) throws(StrataError) -> PredicateTerm {
        guard let translatable = expression as? any StrataTranslatableExpression else {
            throw unsupported(expression, "it has no equivalent in ObjectPredicate")
        }
        return try translatable.strataTerm(&self)
    }

    /// A child that must be a condition; a Boolean key path is `key == TRUE`, a captured Bool
    /// is `TRUEPREDICATE`/`FALSEPREDICATE`.
    mutating func condition(_ expression: Any) throws(StrataError) -> PredicateNode {
        let (node, _) = try optionalCondition(expression)
        return node
    }

    /// A condition and whether it may be nil in Swift (see ``PredicateTerm/condition(_:optional:)``).
    mutating func optionalCondition(_ expression: Any) throws(StrataError) -> (PredicateNode, Bool) {
        switch try term(expression) {
        case .condition(let node, let optional): return (node, optional)
        case .key(let key) where key.terminal == .attribute(.bool):
            return (comparison(key, .equalTo, .single(.bool(true))), false)
        case .value(.bool(let b)): return (.constant(b), false)
        default: throw unsupported(expression, "it is not a condition ObjectPredicate can test")
        }
    }

    /// The key path a variable stands for.
    func variable(_ id: PredicateExpressions.VariableID, in expression: Any) throws(StrataError) -> ModelKeyPath {
        guard let key = variables[id] else { throw unsupported(expression, "it uses a variable from outside the predicate") }
        return key
    }

    /// Translates `body` with `id` standing for `key`.
    mutating func binding<T>(_ id: PredicateExpressions.VariableID, to key: ModelKeyPath,
                             _ body: (inout SwiftPredicateTranslator) throws(StrataError) -> T) throws(StrataError) -> T {
        variables[id] = key
        defer { variables[id] = nil }
        return try body(&self)
    }

    /// A fresh SUBQUERY variable name: `$e1`, `$e2`, … in the order they appear.
    mutating func nextSubqueryVariable() -> String {
        subqueryCount += 1
        return "$e\(subqueryCount)"
    }

    // MARK: Building

    /// A comparison node on `key`.
    func comparison(_ key: ModelKeyPath, _ op: PredicateOperator, _ value: PredicateOperand,
                    options: ObjectPredicate.StringOptions = [], quantifier: PredicateQuantifier? = nil) -> PredicateNode {
        .comparison(PredicateComparison(quantifier: quantifier, keyPath: key.keys, op: op, options: options, value: value))
    }

    /// `lhs op rhs` for two translated operands: a key and a value (either side), or two keys.
    func compare(_ lhs: PredicateTerm, _ op: PredicateOperator, _ rhs: PredicateTerm, in expression: Any,
                 options: ObjectPredicate.StringOptions = []) throws(StrataError) -> PredicateNode {
        switch (lhs, rhs) {
        case (.key(let key), .value(let value)):
            return comparison(key, op, .single(value), options: options)
        case (.value(let value), .key(let key)):
            guard let mirrored = op.mirrored else { break }
            return comparison(key, mirrored, .single(value), options: options)
        case (.key(let key), .key(let other)):
            return comparison(key, op, .keyPath(other.keys), options: options)
        case (.value(let a), .value(let b)) where op == .equalTo || op == .notEqualTo:
            return .constant((a == b) == (op == .equalTo))
        default:
            break
        }
        throw unsupported(expression, "it compares operands ObjectPredicate cannot compare (a key path with a value, or two key paths)")
    }

    /// A Swift value as a predicate value; `.unsupportedPredicate` for a type with no predicate form.
    func value(_ value: Any, in expression: Any) throws(StrataError) -> PredicateTerm {
        switch value {
        case let bounds as any PredicateRangeBounds:
            guard case .single(let lower)? = PredicateArgument.operand(bounds.lowerBoundValue),
                  case .single(let upper)? = PredicateArgument.operand(bounds.upperBoundValue) else { break }
            return .range(lower: .value(lower), upper: .value(upper), closed: bounds.isClosed)
        default:
            switch PredicateArgument.operand(value) {
            case .single(let v)?: return .value(v)
            case .list(let vs)?: return .values(vs)
            default: break
            }
        }
        throw unsupported(expression, "a value of type \(type(of: value)) has no predicate form (conform it to PredicateArgumentConvertible)")
    }

    /// The typed error for `expression`, naming it.
    func unsupported(_ expression: Any, _ why: String) -> StrataError {
        let typeName = String(describing: type(of: expression))
        let shortName = typeName.prefix { $0 != "<" }
        var text = String(describing: expression)
        if text.count > 160 { text = String(text.prefix(160)) + "…" }
        return StrataError(.unsupportedPredicate,
                           "Cannot translate \(shortName) in a #Predicate on \(entityName): \(why). The expression: \(text)",
                           entity: entityName)
    }
}

/// Bounds of a captured `ClosedRange` or `Range`, read without knowing the bound's type.
protocol PredicateRangeBounds {
    var lowerBoundValue: Any { get }
    var upperBoundValue: Any { get }
    var isClosed: Bool { get }
}

extension ClosedRange: PredicateRangeBounds {
    var lowerBoundValue: Any { lowerBound }
    var upperBoundValue: Any { upperBound }
    var isClosed: Bool { true }
}

extension Range: PredicateRangeBounds {
    var lowerBoundValue: Any { lowerBound }
    var upperBoundValue: Any { upperBound }
    var isClosed: Bool { false }
}

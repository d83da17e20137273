import Foundation

// Translations of Foundation's operands and logic: values, variables, key paths, `?.`, `!`,
// `??`, `&&`, `||`, `!`. See ``SwiftPredicateTranslator``.

extension PredicateExpressions.Value: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        try t.value(value, in: self)
    }
}

extension PredicateExpressions.NilLiteral: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm { .value(.null) }
}

extension PredicateExpressions.Variable: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        .key(try t.variable(key, in: self))
    }
}

extension PredicateExpressions.KeyPath: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        guard case .key(let base) = try t.term(root) else {
            throw t.unsupported(self, "its root is not the object or one of its key paths")
        }
        switch base.terminal {
        case .object:
            guard let type = Root.Output.self as? ManagedObject.Type else { break }
            do {
                return .key(base.appending(try KeyPathProbe.modelKeyPath(keyPath, root: type)))
            } catch {
                throw t.unsupported(self, error.message)
            }
        case .toMany:
            guard let collection = Root.Output.self as? any ToManyCollection.Type else { break }
            if keyPath as AnyKeyPath == collection.strataCountKeyPath {
                return .key(ModelKeyPath(keys: base.keys + ["@count"], terminal: .count))
            }
            if keyPath as AnyKeyPath == collection.strataIsEmptyKeyPath {
                return .condition(t.comparison(ModelKeyPath(keys: base.keys + ["@count"], terminal: .count), .equalTo, .single(.integer(0))), optional: false)
            }
        case .attribute(.string):
            if keyPath as AnyKeyPath == \String.isEmpty {
                return .condition(t.comparison(base, .equalTo, .single(.string(""))), optional: false)
            }
        case .attribute, .count:
            break
        }
        throw t.unsupported(self, "only a modelled property of an object, count / isEmpty of a to-many relationship, or isEmpty of a string can be read")
    }
}

/// The collections a to-many relationship is read as, and their `count` and `isEmpty` key paths.
protocol ToManyCollection {
    static var strataCountKeyPath: AnyKeyPath { get }
    static var strataIsEmptyKeyPath: AnyKeyPath { get }
}

extension Set: ToManyCollection {
    static var strataCountKeyPath: AnyKeyPath { \Set<Element>.count }
    static var strataIsEmptyKeyPath: AnyKeyPath { \Set<Element>.isEmpty }
}

extension Array: ToManyCollection {
    static var strataCountKeyPath: AnyKeyPath { \[Element].count }
    static var strataIsEmptyKeyPath: AnyKeyPath { \[Element].isEmpty }
}

extension PredicateExpressions.OptionalFlatMap: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        guard case .key(let unwrapped) = try t.term(wrapped) else {
            throw t.unsupported(self, "only a key path of the object can be unwrapped with ?.")
        }
        let inner = try t.binding(variable.key, to: unwrapped) { (t: inout SwiftPredicateTranslator) throws(StrataError) in
            try t.term(transform)
        }
        switch inner {
        case .key: return inner
        case .condition(let node, _): return .condition(node, optional: true)
        default: throw t.unsupported(self, "what follows ?. is neither a key path nor a condition")
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        let term = try t.term(inner)
        guard case .key = term else { throw t.unsupported(self, "only a key path of the object can be force-unwrapped") }
        return term   // a nil on the way makes the comparison false, where Swift would trap
    }
}

extension PredicateExpressions.NilCoalesce: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        if case .condition(let node, _) = try t.term(lhs), case .value(.bool(false)) = try t.term(rhs) {
            return .condition(node, optional: false)   // `a?.b.contains(x) ?? false`
        }
        throw t.unsupported(self, "only `?? false` after a condition has an ObjectPredicate form; compare the optional key path itself (`== nil`, `== value`)")
    }
}

extension PredicateExpressions.Conjunction: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        let l = try t.condition(lhs), r = try t.condition(rhs)
        return .condition(ObjectPredicate.and([ObjectPredicate(node: l), ObjectPredicate(node: r)]).node, optional: false)
    }
}

extension PredicateExpressions.Disjunction: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        let l = try t.condition(lhs), r = try t.condition(rhs)
        return .condition(ObjectPredicate.or([ObjectPredicate(node: l), ObjectPredicate(node: r)]).node, optional: false)
    }
}

extension PredicateExpressions.Negation: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        .condition(.not(try t.condition(wrapped)), optional: false)
    }
}

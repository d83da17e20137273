import Foundation

// Translations of Foundation's comparisons and ranges: `==`, `!=`, `<`, `<=`, `>`, `>=`,
// `a...b`, `a..<b` and `range.contains(x)`. See ``SwiftPredicateTranslator``.

extension PredicateExpressions.Equal: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        .condition(try t.equality(try t.term(lhs), try t.term(rhs), equal: true, in: self), optional: false)
    }
}

extension PredicateExpressions.NotEqual: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        .condition(try t.equality(try t.term(lhs), try t.term(rhs), equal: false, in: self), optional: false)
    }
}

extension PredicateExpressions.Comparison: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        let predicateOperator: PredicateOperator = switch op {
        case .lessThan: .lessThan
        case .lessThanOrEqual: .lessThanOrEqualTo
        case .greaterThan: .greaterThan
        case .greaterThanOrEqual: .greaterThanOrEqualTo
        }
        return .condition(try t.compare(try t.term(lhs), predicateOperator, try t.term(rhs), in: self), optional: false)
    }
}

extension PredicateExpressions.ClosedRange: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        .range(lower: try t.term(lower), upper: try t.term(upper), closed: true)
    }
}

extension PredicateExpressions.Range: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        .range(lower: try t.term(lower), upper: try t.term(upper), closed: false)
    }
}

extension PredicateExpressions.RangeExpressionContains: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        guard case .range(lower: .value(let lower), upper: .value(let upper), closed: let closed) = try t.term(range),
              case .key(let key) = try t.term(element) else {
            throw t.unsupported(self, "only a range of two values can contain a key path (BETWEEN)")
        }
        if closed { return .condition(t.comparison(key, .between, .list([lower, upper])), optional: false) }
        let node = ObjectPredicate.and([
            ObjectPredicate(node: t.comparison(key, .greaterThanOrEqualTo, .single(lower))),
            ObjectPredicate(node: t.comparison(key, .lessThan, .single(upper))),
        ]).node
        return .condition(node, optional: false)
    }
}

extension SwiftPredicateTranslator {
    /// `lhs == rhs` (or `!=`), including a condition compared with a Bool.
    func equality(_ lhs: PredicateTerm, _ rhs: PredicateTerm, equal: Bool, in expression: Any) throws(StrataError) -> PredicateNode {
        switch (lhs, rhs) {
        case (.condition(let node, let optional), .value(.bool(let b))), (.value(.bool(let b)), .condition(let node, let optional)):
            // `c == true` and `c != true` hold for a nil `c` exactly as the node does for a nil key;
            // `c == false` and `c != false` do not.
            guard b || !optional else {
                throw unsupported(expression, "comparing an optional condition with false has no ObjectPredicate form; write !(… == true)")
            }
            return b == equal ? node : .not(node)
        case (.condition, _), (_, .condition):
            throw unsupported(expression, "a condition can only be compared with true or false")
        default:
            return try compare(lhs, equal ? .equalTo : .notEqualTo, rhs, in: expression)
        }
    }
}

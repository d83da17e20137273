import Foundation

// Translations of Foundation's string tests: `contains` and `starts(with:)`. (Foundation on
// Linux offers no `localizedStandardContains`, `caseInsensitiveCompare` or `localizedCompare`
// in `#Predicate`: they are built into Apple's Foundation framework only.) See
// ``SwiftPredicateTranslator``.

extension SwiftPredicateTranslator {
    /// `key op[options] "text"`, where `base` must be a key path and `other` a string value.
    func stringTest(_ base: PredicateTerm, _ op: PredicateOperator, _ other: PredicateTerm,
                    options: ObjectPredicate.StringOptions = [], in expression: Any) throws(StrataError) -> PredicateTerm {
        guard case .key(let key) = base, case .value(let value) = other, case .string = value else {
            throw unsupported(expression, "only a key path tested against a string value has an ObjectPredicate form")
        }
        return .condition(comparison(key, op, .single(value), options: options), optional: false)
    }
}

extension PredicateExpressions.CollectionContainsCollection: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        try t.stringTest(try t.term(base), .contains, try t.term(other), in: self)
    }
}

extension PredicateExpressions.SequenceStartsWith: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        try t.stringTest(try t.term(base), .beginsWith, try t.term(prefix), in: self)
    }
}

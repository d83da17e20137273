import Foundation

// Translations of Foundation's sequence tests: `[…].contains($0.x)` (IN),
// `$0.tags.contains { … }` (ANY or SUBQUERY) and
// `$0.tags.allSatisfy { … }` (ALL or SUBQUERY). See ``SwiftPredicateTranslator``.

extension PredicateExpressions.SequenceContains: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        switch (try t.term(sequence), try t.term(element)) {
        case (.values(let list), .key(let key)):
            return .condition(t.comparison(key, .in, .list(list)), optional: false)
        default:
            throw t.unsupported(self, "only a collection value containing a key path (IN) has an ObjectPredicate form")
        }
    }
}

extension PredicateExpressions.SequenceContainsWhere: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        try t.quantified(sequence, variable.key, test, all: false, in: self)
    }
}

extension PredicateExpressions.SequenceAllSatisfy: StrataTranslatableExpression {
    func strataTerm(_ t: inout SwiftPredicateTranslator) throws(StrataError) -> PredicateTerm {
        try t.quantified(sequence, variable.key, test, all: true, in: self)
    }
}

extension SwiftPredicateTranslator {
    /// `sequence.contains { test }` (`all` false) or `sequence.allSatisfy { test }` on a to-many
    /// key path. A test that is one comparison of a key of the element becomes `ANY`/`ALL`
    /// (`ANY tags.name == "x"`); any other becomes
    /// `SUBQUERY(tags, $e1, test).@count > 0` (or `SUBQUERY(tags, $e1, NOT test).@count == 0`).
    mutating func quantified(_ sequence: Any, _ variable: PredicateExpressions.VariableID, _ test: Any, all: Bool,
                             in expression: Any) throws(StrataError) -> PredicateTerm {
        guard case .key(let collection) = try term(sequence), collection.terminal == .toMany else {
            throw unsupported(expression, "only a to-many relationship can be searched with contains(where:) or allSatisfy")
        }
        let name = nextSubqueryVariable()
        let inner = try binding(variable, to: ModelKeyPath(keys: [name], terminal: .object)) { (t: inout SwiftPredicateTranslator) throws(StrataError) in
            try t.condition(test)
        }
        if case .comparison(var c) = inner, c.quantifier == nil, c.subquery == nil, c.keyPath.count == 2, c.keyPath[0] == name,
           !c.keyPath[1].hasPrefix("@") {
            switch c.value {
            case .single, .list:
                c.quantifier = all ? .all : .any
                c.keyPath = collection.keys + [c.keyPath[1]]
                return .condition(.comparison(c), optional: false)
            case .keyPath, .variable:
                break
            }
        }
        let subquery = PredicateSubquery(variable: name, predicate: all ? .not(inner) : inner)
        let node = PredicateNode.comparison(PredicateComparison(
            quantifier: nil, keyPath: collection.keys, op: all ? .equalTo : .greaterThan, options: [],
            value: .single(.integer(0)), subquery: subquery))
        return .condition(node, optional: false)
    }
}

import GRDB

/// A predicate resolved against one entity: every key path checked, every constant
/// converted. It writes the SQL condition and evaluates objects in memory, with the same
/// answer either way (see docs/predicates.md).
struct CompiledPredicate {
    /// The resolved tree.
    indirect enum Node {
        case constant(Bool)
        case not(Node)
        case and([Node])
        case or([Node])
        /// A value read through a key path, tested.
        case test(ResolvedKeyPath, ComparisonTest)
        /// Two key paths of the object, compared.
        case compare(KeyPathComparison)
        /// `ANY`/`ALL`/`NONE` of `inner`, over the to-many `relationshipIndex` of the object
        /// reached by `steps` (the to-ones before it); `inner` is rooted at the destination.
        case quantified(PredicateQuantifier, steps: [ResolvedKeyPath.Step], owner: EntityDescription,
                        relationshipIndex: Int, inner: Node)
    }

    let entity: EntityDescription
    let model: ObjectModel
    let root: Node

    /// A boolean SQL expression (never NULL) over table alias `alias` of the entity's
    /// table; values are appended to `arguments` for its `?` placeholders.
    func sql(alias: String, arguments: inout [DatabaseValue]) -> String {
        var writer = PredicateSQLWriter(model: model, rootAlias: alias, arguments: arguments)
        let text = Self.sql(root, alias: alias, writer: &writer)
        arguments = writer.arguments
        return text
    }

    /// Whether `subject` satisfies the predicate.
    func evaluate(_ subject: any PredicateSubject) -> Bool {
        Self.evaluate(root, subject)
    }

    static func evaluate(_ node: Node, _ subject: any PredicateSubject) -> Bool {
        switch node {
        case .constant(let value):
            return value
        case .not(let inner):
            return !evaluate(inner, subject)
        case .and(let nodes):
            for n in nodes where !evaluate(n, subject) { return false }
            return true
        case .or(let nodes):
            for n in nodes where evaluate(n, subject) { return true }
            return false
        case .test(let keyPath, let test):
            return test.evaluate(keyPath.value(of: subject))
        case .compare(let comparison):
            return comparison.evaluate(subject)
        case .quantified(let quantifier, let steps, _, let r, let inner):
            guard let owner = ResolvedKeyPath.follow(steps, from: subject) else { return quantifier != .any }
            let destinations = owner.predicateToMany(r)
            switch quantifier {
            case .any: return destinations.contains { evaluate(inner, $0) }
            case .all: return destinations.allSatisfy { evaluate(inner, $0) }
            case .noneMatch: return !destinations.contains { evaluate(inner, $0) }
            }
        }
    }

    static func sql(_ node: Node, alias: String, writer: inout PredicateSQLWriter) -> String {
        switch node {
        case .constant(let value):
            return value ? "1" : "0"
        case .not(let inner):
            return "NOT (\(sql(inner, alias: alias, writer: &writer)))"
        case .and(let nodes):
            return "(" + nodes.map { sql($0, alias: alias, writer: &writer) }.joined(separator: " AND ") + ")"
        case .or(let nodes):
            return "(" + nodes.map { sql($0, alias: alias, writer: &writer) }.joined(separator: " OR ") + ")"
        case .test(let keyPath, let test):
            let lhs = keyPath.sql(from: alias, writer: &writer)
            return test.sql(lhs, writer: &writer)
        case .compare(let comparison):
            return comparison.sql(alias: alias, writer: &writer)
        case .quantified(let quantifier, let steps, let owner, let r, let inner):
            let ownerID = ResolvedKeyPath.objectIDSQL(steps, from: alias, writer: &writer)
            let source = writer.toManySource(owner, r, ownerID: ownerID)
            let condition = sql(inner, alias: source.alias, writer: &writer)
            switch quantifier {
            case .any: return "EXISTS (SELECT 1 \(source.fromWhere) AND \(condition))"
            case .all: return "NOT EXISTS (SELECT 1 \(source.fromWhere) AND NOT (\(condition)))"
            case .noneMatch: return "NOT EXISTS (SELECT 1 \(source.fromWhere) AND \(condition))"
            }
        }
    }
}

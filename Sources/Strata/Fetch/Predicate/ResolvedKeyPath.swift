import GRDB

/// A key path resolved against the model: to-one steps from a root entity, then what it
/// ends at. Reads the same value in memory and in SQL.
struct ResolvedKeyPath {
    /// One to-one hop.
    struct Step {
        /// The relationship's index in `source`.
        var relationshipIndex: Int
        var source: EntityDescription
        var destination: EntityDescription
        var storage: RelationshipStorage { source.relationships[relationshipIndex].storage }
    }

    /// What the key path ends at, on the entity reached by the steps.
    indirect enum Terminal {
        /// An attribute's value.
        case attribute(Int)
        /// A to-one relationship's destination, as `.objectID` (or `.null`).
        case toOneID(Int)
        /// The object itself, as `.objectID` (the element of a to-many compared to an object).
        case selfID
        /// The number of destinations of a to-many relationship, as `.integer`.
        case count(Int)
        /// The number of destinations of to-many `r` that pass `inner`, as `.integer`
        /// (`SUBQUERY(r, $v, inner).@count`; `inner` is rooted at the destination).
        case subqueryCount(Int, CompiledPredicate.Node)
        /// A collection operator over to-many `r`: `inner`, rooted at the destination, read on
        /// each destination (`r.@sum.key`), as `.double` or `.null`.
        case aggregate(CollectionOperator, Int, ResolvedKeyPath)
    }

    var steps: [Step]
    /// The entity the terminal is read from.
    var endEntity: EntityDescription
    var terminal: Terminal

    /// The attribute type at the end, if it ends at an attribute.
    var attributeType: AttributeType? {
        if case .attribute(let i) = terminal { return endEntity.attributes[i].type }
        return nil
    }

    // MARK: Memory

    /// The value for `subject` (`.null` if a to-one on the way is nil).
    func value(of subject: any PredicateSubject) -> PropertyValue {
        var current = subject
        for step in steps {
            guard let next = current.predicateToOne(step.relationshipIndex) else { return .null }
            current = next
        }
        switch terminal {
        case .attribute(let i): return current.predicateAttribute(i)
        case .toOneID(let r): return current.predicateToOne(r).map { .objectID($0.predicateObjectID) } ?? .null
        case .selfID: return .objectID(current.predicateObjectID)
        case .count(let r): return .integer(Int64(current.predicateToMany(r).count))
        case .subqueryCount(let r, let inner):
            return .integer(Int64(current.predicateToMany(r).count(where: { CompiledPredicate.evaluate(inner, $0) })))
        case .aggregate(let op, let r, let inner):
            return op.apply(current.predicateToMany(r).compactMap { inner.value(of: $0).numericValue })
        }
    }

    /// The object the steps lead to, or nil if a to-one on the way is nil.
    static func follow(_ steps: [Step], from subject: any PredicateSubject) -> (any PredicateSubject)? {
        var current = subject
        for step in steps {
            guard let next = current.predicateToOne(step.relationshipIndex) else { return nil }
            current = next
        }
        return current
    }

    // MARK: SQL

    /// The SQL expression of the value, over table alias `alias` of the root entity. Steps
    /// become correlated scalar subqueries (NULL when a to-one is nil); decimals are
    /// `CAST(… AS REAL)` so they compare numerically.
    func sql(from alias: String, writer: inout PredicateSQLWriter) -> String {
        Self.sql(steps[...], from: alias, writer: &writer) { alias, writer in
            terminalSQL(on: alias, writer: &writer)
        }
    }

    /// The SQL id of the object the steps lead to (`alias._id` when there are none).
    static func objectIDSQL(_ steps: [Step], from alias: String, writer: inout PredicateSQLWriter) -> String {
        guard let last = steps.last else { return "\(alias)._id" }
        let prefix = ResolvedKeyPath(steps: Array(steps.dropLast()), endEntity: last.source, terminal: .toOneID(last.relationshipIndex))
        return prefix.sql(from: alias, writer: &writer)
    }

    private static func sql(
        _ steps: ArraySlice<Step>, from alias: String, writer: inout PredicateSQLWriter,
        terminal: (String, inout PredicateSQLWriter) -> String
    ) -> String {
        guard let step = steps.first else { return terminal(alias, &writer) }
        let t = writer.freshAlias()
        let inner = sql(steps.dropFirst(), from: t, writer: &writer, terminal: terminal)
        let table = quoted(step.destination.tableName)
        switch step.storage {
        case .foreignKey(let column):
            return "(SELECT \(inner) FROM \(table) \(t) WHERE \(t)._id = \(alias).\(quoted(column)))"
        case .inverseForeignKey(let column, _):
            return "(SELECT \(inner) FROM \(table) \(t) WHERE \(t).\(quoted(column)) = \(alias)._id)"
        case .joinTable:
            return "NULL"  // programmer error: steps are to-one, and to-ones never use a join table
        }
    }

    private func terminalSQL(on alias: String, writer: inout PredicateSQLWriter) -> String {
        switch terminal {
        case .attribute(let i):
            let attribute = endEntity.attributes[i]
            let column = "\(alias).\(quoted(attribute.name))"
            return attribute.type == .decimal ? "CAST(\(column) AS REAL)" : column
        case .toOneID(let r):
            let relationship = endEntity.relationships[r]
            switch relationship.storage {
            case .foreignKey(let column):
                return "\(alias).\(quoted(column))"
            case .inverseForeignKey(let column, _):
                let t = writer.freshAlias()
                let destination = writer.model.entities[relationship.destinationIndex]
                return "(SELECT \(t)._id FROM \(quoted(destination.tableName)) \(t) WHERE \(t).\(quoted(column)) = \(alias)._id)"
            case .joinTable:
                return "NULL"  // programmer error: a to-one never uses a join table
            }
        case .selfID:
            return "\(alias)._id"
        case .count(let r):
            let source = writer.toManySource(endEntity, r, ownerID: "\(alias)._id")
            return "(SELECT COUNT(*) \(source.fromWhere))"
        case .subqueryCount(let r, let inner):
            let source = writer.toManySource(endEntity, r, ownerID: "\(alias)._id")
            let condition = CompiledPredicate.sql(inner, alias: source.alias, writer: &writer)
            return "(SELECT COUNT(*) \(source.fromWhere) AND \(condition))"
        case .aggregate(let op, let r, let inner):
            let source = writer.toManySource(endEntity, r, ownerID: "\(alias)._id")
            let value = inner.sql(from: source.alias, writer: &writer)
            return "(SELECT \(op.sqlFunction)(\(value)) \(source.fromWhere))"
        }
    }
}

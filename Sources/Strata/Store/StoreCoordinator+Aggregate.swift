import Foundation
import GRDB
import GRDBSQLite

/// An aggregate plan in, dictionaries out: expressions, grouping, having and distinct results
/// in one statement.
extension StoreCoordinator {
    /// Runs `plan` as one statement:
    ///
    /// ```sql
    /// SELECT * FROM (SELECT [DISTINCT] <columns AS names> FROM <entity> t0 WHERE … GROUP BY …) r
    /// WHERE <having over r> ORDER BY <sort keys over r>, <every column> LIMIT … OFFSET …
    /// ```
    ///
    /// The having predicate and the sort keys were compiled against the plan's result entity,
    /// whose keys are the names of the inner columns. Every column closes the order, so equal
    /// sort values come back in one stable order.
    func readAggregates(_ plan: AggregatePlan) throws(StrataError) -> [[String: PropertyValue]] {
        var arguments: [DatabaseValue] = []
        var columns: [String] = []
        for output in plan.outputs {
            columns.append("\(Self.columnSQL(output.column)) AS \(quoted(output.sqlName))")
        }
        // A to-one into an entity with subentities also reads its target's `_entity`, after the
        // outputs (the having predicate and sort keys compare the key column as it is).
        var kinds: [Int: (column: Int32, destination: EntityDescription)] = [:]
        for (i, output) in plan.outputs.enumerated() {
            guard let destination = output.column.toOneDestination, destination.hierarchy.kindIndexes.count > 1 else { continue }
            kinds[i] = (Int32(columns.count), destination)
            columns.append("\(Self.kindSubquery(key: Self.columnSQL(output.column), destination: destination)) AS \(quoted("\(output.sqlName)|kind"))")
        }
        var inner = "SELECT \(plan.distinct ? "DISTINCT " : "")\(columns.joined(separator: ", ")) FROM \(quoted(plan.entity.tableName)) t0"
        let kind = plan.entity.kindCondition(alias: "t0")
        if let predicate = plan.predicate {
            inner += " WHERE " + (kind.map { $0 + " AND (" } ?? "") + predicate.sql(alias: "t0", arguments: &arguments) + (kind == nil ? "" : ")")
        } else if let kind {
            inner += " WHERE " + kind
        }
        if !plan.groupBy.isEmpty {
            let keys = plan.outputs.filter { plan.groupBy.contains($0.name) }.map { Self.columnSQL($0.column) }
            inner += " GROUP BY " + keys.joined(separator: ", ")
        }
        var sql = "SELECT * FROM (\(inner)) r"
        if let having = plan.having { sql += " WHERE " + having.sql(alias: "r", arguments: &arguments) }
        var writer = PredicateSQLWriter(model: model, rootAlias: "r", arguments: arguments)
        let order = plan.sortKeys.map { $0.orderingTerm(alias: "r", writer: &writer) } + plan.outputs.map { "r.\(quoted($0.sqlName))" }
        arguments = writer.arguments
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if plan.limit > 0 || plan.offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments.append((plan.limit > 0 ? Int64(plan.limit) : -1).databaseValue)
            arguments.append(Int64(plan.offset).databaseValue)
        }
        let entity = plan.entity, model = self.model
        return try read { db in
            let statement = try db.cachedStatement(sql: sql)
            statement.setUncheckedArguments(StatementArguments(arguments))
            var result: [[String: PropertyValue]] = []
            try RawStatement.forEachRow(statement, db) { handle in
                var dictionary: [String: PropertyValue] = [:]
                for (i, output) in plan.outputs.enumerated() {
                    var value = try Self.read(output, handle, Int32(i), entity: entity)
                    if let kind = kinds[i], case .objectID(let id) = value {
                        value = .objectID(ObjectID(entity: kind.destination.kind(named: RawStatement.text(handle, kind.column), in: model), key: id.key))
                    }
                    dictionary[output.name] = value
                }
                result.append(dictionary)
            }
            return result
        }
    }

    /// The SQL of one result column over the entity's alias `t0`.
    private static func columnSQL(_ column: AggregatePlan.Column) -> String {
        switch column {
        case .attribute(let attribute):
            return "t0.\(quoted(attribute.name))"
        case .toOne(let column, _):
            return "t0.\(quoted(column))"
        case .path(let path):
            return path.sql(alias: "t0")
        case .expression(let function, let argument, let computed, let result):
            let value: String
            switch argument {
            case nil: value = "*"
            case .attribute(let attribute)?:
                value = attribute.type == .decimal ? "CAST(t0.\(quoted(attribute.name)) AS REAL)" : "t0.\(quoted(attribute.name))"
            case .foreignKey(let column)?: value = "t0.\(quoted(column))"
            }
            let aggregate: String
            switch function {
            case .count: aggregate = "COUNT(\(value))"
            case .sum: aggregate = computed == .int64 ? "COALESCE(SUM(\(value)), 0)" : "TOTAL(\(value))"
            case .average: aggregate = "AVG(\(value))"
            case .min: aggregate = "MIN(\(value))"
            case .max: aggregate = "MAX(\(value))"
            }
            switch result {
            case .int16, .int32, .int64: return "CAST(\(aggregate) AS INTEGER)"
            case .double, .decimal: return "CAST(\(aggregate) AS REAL)"
            default: return aggregate
            }
        }
    }

    /// Column `index` of the current row, as `output` returns it.
    private static func read(_ output: AggregatePlan.Output, _ handle: OpaquePointer, _ index: Int32, entity: EntityDescription) throws(StrataError) -> PropertyValue {
        switch output.column {
        case .attribute(let attribute):
            let stored = RawStatement.value(handle, index, type: attribute.type)
            guard stored.fits(attribute.type) else { throw PropertyValue.misfit(stored, attribute: attribute, entity: entity, objectID: nil) }
            return stored
        case .toOne(_, let destination):
            return RawStatement.integer(handle, index).map { .objectID(ObjectID(entity: destination, key: $0)) } ?? .null
        case .path(let path):
            switch path.end {
            case .attribute(let attribute, let owner):
                let stored = RawStatement.value(handle, index, type: attribute.type)
                guard stored.fits(attribute.type) else { throw PropertyValue.misfit(stored, attribute: attribute, entity: owner, objectID: nil) }
                return stored
            case .toOne(_, let destination):
                return RawStatement.integer(handle, index).map { .objectID(ObjectID(entity: destination, key: $0)) } ?? .null
            }
        case .expression(_, _, _, let result):
            let value = RawStatement.value(handle, index, type: result)
            // The shortest text of the double (2.5, not 2.4999…), read as a decimal.
            if result == .decimal, case .double(let d) = value, d.isFinite, let decimal = Decimal(string: "\(d)") { return .decimal(decimal) }
            return value
        }
    }
}

extension AggregatePlan.Column {
    /// The entity a to-one column's IDs name (a plain to-one, or a key path ending in one).
    var toOneDestination: EntityDescription? {
        switch self {
        case .toOne(_, let destination): destination
        case .path(let path): if case .toOne(_, let destination) = path.end { destination } else { nil }
        case .attribute, .expression: nil
        }
    }
}

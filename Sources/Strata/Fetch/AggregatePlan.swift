/// A dictionary fetch with expressions, grouping, a having predicate or distinct results,
/// checked against the model: the columns it returns, the row filter, and the group filter
/// and order over a *result entity* whose attributes are those columns. The store turns it
/// into one statement (`StoreCoordinator+Aggregate`).
struct AggregatePlan {
    /// What one result column holds.
    enum Column {
        /// An attribute of the entity, read as stored.
        case attribute(AttributeDescription)
        /// A to-one relationship's foreign-key column, read as an `.objectID` of `destination`.
        case toOne(column: String, destination: EntityDescription)
        /// A key path through to-ones (`folder.name`), read by one subquery per hop.
        case path(ToOnePath)
        /// An aggregate of `argument` (nil: all rows), computed as `computed` and returned as `result`.
        case expression(ExpressionDescription.Function, argument: Argument?, computed: AttributeType, result: AttributeType)
    }

    /// What an expression aggregates.
    enum Argument {
        /// An attribute (decimals are aggregated as doubles).
        case attribute(AttributeDescription)
        /// A to-one relationship's foreign-key column (for `count`).
        case foreignKey(String)
    }

    /// One result column: its key in the dictionaries, and what it holds.
    struct Output {
        let name: String
        let column: Column
        /// The column's name in SQL and in the result entity: the key, or for a key path
        /// (whose dots a key of the result entity cannot hold) a name of Strata's own.
        let sqlName: String

        init(name: String, column: Column, sqlName: String? = nil) {
            self.name = name
            self.column = column
            self.sqlName = sqlName ?? name
        }
    }

    let entity: EntityDescription
    let model: ObjectModel
    /// Filters rows before grouping.
    let predicate: CompiledPredicate?
    let outputs: [Output]
    /// The output names grouped by (SQL `GROUP BY`).
    let groupBy: [String]
    let distinct: Bool
    /// The entity whose attributes and to-ones are the outputs: having and sort keys are
    /// compiled against it, and read the columns of the result by name.
    let resultEntity: EntityDescription
    /// Filters groups (SQL `HAVING`, applied to the grouped rows).
    let having: CompiledPredicate?
    let sortKeys: [CompiledSortKey]
    let limit: Int
    let offset: Int

    /// Whether a request needs this plan rather than a plain read of properties.
    static func isNeeded<T>(for request: FetchRequest<T>) -> Bool {
        !request.expressionsToFetch.isEmpty || !request.propertiesToGroupBy.isEmpty
            || request.havingPredicate != nil || request.returnsDistinctResults
    }

    /// Checks `request` against `entity` as Core Data does; throws `.invalidRequest` (or
    /// `.malformedPredicate` for a predicate) naming the key at fault.
    init<T>(_ request: FetchRequest<T>, entity: EntityDescription, model: ObjectModel) throws(StrataError) {
        self.entity = entity
        self.model = model
        func failure(_ message: String, key: String? = nil) -> StrataError {
            StrataError(.invalidRequest, message, entity: entity.name, key: key)
        }
        let grouped = !request.propertiesToGroupBy.isEmpty
        let expressions = request.expressionsToFetch
        let properties = request.propertiesToFetch
            ?? (grouped ? request.propertiesToGroupBy : (expressions.isEmpty ? entity.attributes.map(\.name) : []))
        if !grouped && !expressions.isEmpty && !properties.isEmpty {
            throw failure("A dictionary fetch with expressions fetches only expressions unless it groups: put \(properties.joined(separator: ", ")) in propertiesToGroupBy, or remove them from propertiesToFetch.", key: properties[0])
        }
        if request.havingPredicate != nil && !grouped {
            throw failure("havingPredicate filters groups: it needs propertiesToGroupBy.")
        }
        for key in request.propertiesToGroupBy where !properties.contains(key) {
            throw failure("\(key) is in propertiesToGroupBy but not in propertiesToFetch; a grouped fetch returns the keys it groups by.", key: key)
        }
        if grouped {
            for key in properties where !request.propertiesToGroupBy.contains(key) {
                throw failure("\(key) is fetched but not grouped by: a grouped fetch may fetch only keys of propertiesToGroupBy and expressions.", key: key)
            }
        }
        var outputs: [Output] = []
        var names: Set<String> = []
        let taken = Set(expressions.map(\.name))
        for key in properties {
            guard names.insert(key).inserted else { throw failure("\(key) is fetched twice.", key: key) }
            let column = try Self.propertyColumn(key, entity: entity, model: model, failure: failure)
            var sqlName: String?
            if key.contains(".") {
                // A name no key of the model (they start with a letter) nor any expression has.
                var n = outputs.count
                while taken.contains("_path\(n)") { n += 1 }
                sqlName = "_path\(n)"
            }
            outputs.append(Output(name: key, column: column, sqlName: sqlName))
        }
        for expression in expressions {
            guard !expression.name.isEmpty else { throw failure("An expression needs a name.") }
            // The name becomes an SQL column name and a key of the having predicate.
            guard !expression.name.contains(where: { $0 == "\"" || $0 == "." || $0 == "\0" }),
                  expression.name.first != "$", expression.name.first != "@" else {
                throw failure("The result name \(expression.name) cannot hold \", . or NUL, nor start with $ or @.", key: expression.name)
            }
            guard names.insert(expression.name).inserted else {
                throw failure("The result name \(expression.name) is used twice.", key: expression.name)
            }
            outputs.append(Output(name: expression.name, column: try Self.expressionColumn(expression, entity: entity, failure: failure)))
        }
        self.outputs = outputs
        self.groupBy = request.propertiesToGroupBy
        self.distinct = request.returnsDistinctResults
        self.predicate = try request.predicate?.compiled(for: entity, in: model)
        let resultEntity = Self.resultEntity(of: entity, outputs: outputs, model: model)
        self.resultEntity = resultEntity
        let paths = outputs.filter { $0.sqlName != $0.name }.map { (segments: $0.name.split(separator: ".").map(String.init), sqlName: $0.sqlName) }
        if let having = request.havingPredicate {
            self.having = try Self.renamingPaths(having, paths).compiled(for: resultEntity, in: model)
        } else {
            self.having = nil
        }
        let sqlNames = Set(outputs.map(\.sqlName))
        var sortKeys: [CompiledSortKey] = []
        for var key in request.sortKeys {
            // A result key, or a key path through a to-one result key (`folder.name`), or
            // through a fetched key path (`folder.owner.name` after `folder.owner`).
            key.keyPath = Self.renamingPath(key.keyPath.split(separator: ".").map(String.init), paths).joined(separator: ".")
            guard let first = key.keyPath.split(separator: ".").first, sqlNames.contains(String(first)) else {
                throw failure("Cannot sort by \(key.keyPath): a dictionary fetch with expressions, grouping or distinct results sorts by the keys it fetches and the names of its expressions.", key: key.keyPath)
            }
            sortKeys.append(try key.compiled(for: resultEntity, in: model))
        }
        self.sortKeys = sortKeys
        self.limit = max(0, request.fetchLimit)
        self.offset = max(0, request.fetchOffset)
    }

    private static func propertyColumn(
        _ key: String, entity: EntityDescription, model: ObjectModel, failure: (String, String?) -> StrataError
    ) throws(StrataError) -> Column {
        switch entity.propertyIndex[key] {
        case .attribute(let a)?:
            let attribute = entity.attributes[a]
            guard attribute.type != .transformable else {
                throw failure("\(entity.name).\(key) is transformable: it cannot be grouped or compared for distinct results.", key)
            }
            return .attribute(attribute)
        case .relationship(let r)?:
            let relationship = entity.relationships[r]
            guard case .foreignKey(let column) = relationship.storage else {
                throw failure("\(entity.name).\(key) is \(relationship.isToMany ? "to-many" : "a to-one stored on the other side"): a dictionary fetch returns attributes and to-one relationships only.", key)
            }
            return .toOne(column: column, destination: model.entities[relationship.destinationIndex])
        case nil where key.contains("."):
            let path = try ToOnePath(key, from: entity, model: model)
            if case .attribute(let attribute, let owner) = path.end, attribute.type == .transformable {
                throw failure("\(owner.name).\(attribute.name) (\(key)) is transformable: it cannot be grouped or compared for distinct results.", key)
            }
            return .path(path)
        case nil:
            throw failure("\(entity.name) has no property \(key).", key)
        }
    }

    /// `keyPath` with a leading fetched key path (the longest) replaced by its SQL name.
    static func renamingPath(_ keyPath: [String], _ paths: [(segments: [String], sqlName: String)]) -> [String] {
        var best: (length: Int, sqlName: String)?
        for path in paths where keyPath.count >= path.segments.count && Array(keyPath.prefix(path.segments.count)) == path.segments {
            if path.segments.count > (best?.length ?? 0) { best = (path.segments.count, path.sqlName) }
        }
        guard let best else { return keyPath }
        return [best.sqlName] + keyPath.dropFirst(best.length)
    }

    /// `predicate` with the fetched key paths it names replaced by their SQL names, so that it
    /// compiles against the result entity.
    static func renamingPaths(_ predicate: ObjectPredicate, _ paths: [(segments: [String], sqlName: String)]) -> ObjectPredicate {
        guard !paths.isEmpty else { return predicate }
        func rename(_ node: PredicateNode) -> PredicateNode {
            switch node {
            case .constant: return node
            case .not(let inner): return .not(rename(inner))
            case .and(let nodes): return .and(nodes.map(rename))
            case .or(let nodes): return .or(nodes.map(rename))
            case .comparison(var c):
                c.keyPath = renamingPath(c.keyPath, paths)
                if case .keyPath(let other) = c.value, !other.isEmpty { c.value = .keyPath(renamingPath(other, paths)) }
                return .comparison(c)
            }
        }
        return ObjectPredicate(node: rename(predicate.node))
    }

    private static func expressionColumn(
        _ expression: ExpressionDescription, entity: EntityDescription, failure: (String, String?) -> StrataError
    ) throws(StrataError) -> Column {
        let function = expression.function
        guard let key = expression.keyPath else {
            guard function == .count else { throw failure("\(function.rawValue) (\(expression.name)) needs a key path.", expression.name) }
            return .expression(.count, argument: nil, computed: .int64, result: try resultType(expression, natural: .int64, allowed: countTypes, failure: failure))
        }
        let argument: Argument
        let type: AttributeType
        switch entity.propertyIndex[key] {
        case .attribute(let a)?:
            argument = .attribute(entity.attributes[a])
            type = entity.attributes[a].type
        case .relationship(let r)?:
            let relationship = entity.relationships[r]
            guard function == .count, case .foreignKey(let column) = relationship.storage else {
                throw failure("\(function.rawValue) of \(entity.name).\(key) (\(expression.name)): \(relationship.isToMany ? "a to-many relationship cannot be aggregated in a dictionary fetch; count it with a predicate's @count" : "only count applies to a to-one relationship").", key)
            }
            argument = .foreignKey(column)
            type = .int64
        case nil:
            throw failure("\(entity.name) has no property \(key) (expression \(expression.name)).", key)
        }
        let numbers: Set<AttributeType> = [.int16, .int32, .int64, .double, .decimal]
        switch function {
        case .count:
            return .expression(.count, argument: argument, computed: .int64, result: try resultType(expression, natural: .int64, allowed: countTypes, failure: failure))
        case .sum, .average:
            guard numbers.contains(type) else {
                throw failure("\(function.rawValue) needs a number attribute; \(entity.name).\(key) is \(type.rawValue).", key)
            }
            let computed: AttributeType = function == .average || type == .double || type == .decimal ? .double : .int64
            let natural: AttributeType = type == .decimal ? .decimal : computed
            return .expression(function, argument: argument, computed: computed, result: try resultType(expression, natural: natural, allowed: numbers, failure: failure))
        case .min, .max:
            guard type != .transformable else {
                throw failure("\(function.rawValue) needs an attribute with an order; \(entity.name).\(key) is transformable.", key)
            }
            let computed: AttributeType = type == .decimal ? .double : type
            let allowed: Set<AttributeType> = numbers.contains(type) ? numbers : [type]
            return .expression(function, argument: argument, computed: computed, result: try resultType(expression, natural: type, allowed: allowed, failure: failure))
        }
    }

    private static let countTypes: Set<AttributeType> = [.int16, .int32, .int64, .double]

    private static func resultType(
        _ expression: ExpressionDescription, natural: AttributeType, allowed: Set<AttributeType>, failure: (String, String?) -> StrataError
    ) throws(StrataError) -> AttributeType {
        guard let wanted = expression.resultType else { return natural }
        guard allowed.contains(wanted) else {
            let names = allowed.map(\.rawValue).sorted().joined(separator: ", ")
            throw failure("\(expression.function.rawValue) (\(expression.name)) cannot return \(wanted.rawValue); it returns \(names).", expression.name)
        }
        return wanted
    }

    /// An entity (not in the model) with one attribute or to-one per output, named as the
    /// output: predicates and sort keys compiled against it read the result's columns.
    private static func resultEntity(of entity: EntityDescription, outputs: [Output], model: ObjectModel) -> EntityDescription {
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        for output in outputs {
            switch output.column {
            case .attribute(let attribute):
                attributes.append(attribute)
            case .toOne:
                guard let original = entity.relationship(named: output.name) else { continue }
                var relationship = original
                relationship.storage = .foreignKey(column: output.name)
                relationship.foreignKeyOrderColumn = nil
                relationships.append(relationship)
            case .path(let path):
                switch path.end {
                case .attribute(let original, _):
                    var attribute = original
                    attribute.name = output.sqlName
                    attributes.append(attribute)
                case .toOne(let original, _):
                    var relationship = original
                    relationship.name = output.sqlName
                    relationship.storage = .foreignKey(column: output.sqlName)
                    relationship.foreignKeyOrderColumn = nil
                    relationships.append(relationship)
                }
            case .expression(_, _, _, let result):
                attributes.append(AttributeDescription(output.name, type: result))
            }
        }
        return EntityDescription(name: entity.name, attributes: attributes, relationships: relationships,
                                 managedClass: ManagedObject.self, index: -1, attributeConversions: [], relationshipConversions: [])
    }
}

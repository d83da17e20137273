import GRDB
import GRDBSQLite

/// A fetch plan in, rows out: the SQL of fetches, counts and dictionary fetches.
extension StoreCoordinator {
    /// The rows a plan selects (at most `pendingChanges` more than its limit, for the caller
    /// to fold unsaved changes into).
    func readRows(_ plan: FetchPlan, pendingChanges window: Int?) throws(StrataError) -> [RowSnapshot] {
        let reader = RowReader(entity: plan.entity, model: model)
        var arguments: [DatabaseValue] = []
        let sql = plan.sql(columns: reader.selectList(alias: "t0"), pendingChanges: window, arguments: &arguments)
        let token = rowCache.isShared ? rowCache.token() : nil
        let rows = try read(plan) { db -> [RowSnapshot] in
            let statement = try db.cachedStatement(sql: sql)
            statement.setUncheckedArguments(StatementArguments(arguments))
            var rows: [RowSnapshot] = []
            try RawStatement.forEachRow(statement, db) { rows.append(reader.read($0)) }
            return rows
        }
        if let token { rowCache.store(rows, token: token) }   // a fetch reads the store and refreshes the cache
        return rows
    }

    /// The IDs of the rows a plan selects (each naming its row's own entity when the plan's
    /// entity has subentities).
    func readKeys(_ plan: FetchPlan, pendingChanges: Int?) throws(StrataError) -> [ObjectID] {
        var arguments: [DatabaseValue] = []
        let entity = plan.entity, model = self.model
        let kinds = entity.hierarchy.kindIndexes.count > 1
        let sql = plan.sql(columns: kinds ? "t0._id, t0.\(EntityHierarchy.kindColumn)" : "t0._id", pendingChanges: pendingChanges, arguments: &arguments)
        return try read(plan) { db -> [ObjectID] in
            let statement = try db.cachedStatement(sql: sql)
            statement.setUncheckedArguments(StatementArguments(arguments))
            var ids: [ObjectID] = []
            try RawStatement.forEachRow(statement, db) { handle in
                let kind = kinds ? entity.kind(named: RawStatement.text(handle, 1), in: model) : entity
                ids.append(ObjectID(entity: kind, key: sqlite3_column_int64(handle, 0)))   // `_id` is never NULL
            }
            return ids
        }
    }

    /// How many rows pass a plan's predicate (before its offset and limit).
    func count(_ plan: FetchPlan) throws(StrataError) -> Int {
        var arguments: [DatabaseValue] = []
        let sql = "SELECT COUNT(*) FROM " + plan.fromAndWhere(arguments: &arguments)
        return try read(plan) { db in try Int.fetchOne(db.cachedStatement(sql: sql), arguments: StatementArguments(arguments)) ?? 0 }
    }

    /// The values of `keys` (attributes and to-one relationships) of the rows a plan selects.
    func readValues(_ plan: FetchPlan, keys: [String]) throws(StrataError) -> [[String: PropertyValue]] {
        let entity = plan.entity
        var columns: [String] = []
        var readers: [(String, (OpaquePointer, Int32) throws(StrataError) -> PropertyValue)] = []
        for key in keys {
            switch entity.propertyIndex[key] {
            case .attribute(let i)?:
                columns.append("t0.\(quoted(key))")
                readers.append((key, Self.attributeReader(entity.attributes[i], of: entity)))
            case .relationship(let i)?:
                let relationship = entity.relationships[i]
                guard case .foreignKey(let column) = relationship.storage else {
                    throw StrataError(.invalidRequest, "propertiesToFetch takes attributes and to-one relationships; \(key) is not one.", entity: entity.name, key: key)
                }
                let destination = model.entities[relationship.destinationIndex]
                columns.append(Self.objectIDColumn(key: "t0.\(quoted(column))", destination: destination))
                readers.append((key, Self.objectIDReader(destination, model: model)))
            case nil where key.contains("."):
                // A key path through to-ones (`folder.name`), under its key path as in Core Data.
                let path = try ToOnePath(key, from: entity, model: model)
                switch path.end {
                case .attribute(let attribute, let owner):
                    columns.append(path.sql(alias: "t0"))
                    readers.append((key, Self.attributeReader(attribute, of: owner)))
                case .toOne(_, let destination):
                    columns.append(Self.objectIDColumn(key: path.sql(alias: "t0"), destination: destination))
                    readers.append((key, Self.objectIDReader(destination, model: model)))
                }
            case nil:
                throw StrataError(.invalidRequest, "\(entity.name) has no property \(key).", entity: entity.name, key: key)
            }
        }
        var arguments: [DatabaseValue] = []
        let sql = plan.sql(columns: columns.isEmpty ? "t0._id" : columns.joined(separator: ", "), pendingChanges: nil, arguments: &arguments)
        return try read(plan) { db in
            let statement = try db.cachedStatement(sql: sql)
            statement.setUncheckedArguments(StatementArguments(arguments))
            var result: [[String: PropertyValue]] = []
            try RawStatement.forEachRow(statement, db) { handle in
                var dictionary: [String: PropertyValue] = [:]
                for (i, (key, read)) in readers.enumerated() { dictionary[key] = try read(handle, Int32(i)) }
                result.append(dictionary)
            }
            return result
        }
    }
}

extension StoreCoordinator {
    /// The column of a dictionary fetch that reads a to-one's target, whose key is the SQL
    /// `key`: the key itself, or, when `destination` has subentities, `<key>|<entity>` (the
    /// target row's `_entity` read in the same statement), so the ID names the target's own
    /// entity as relationship IDs do elsewhere. A key whose row is gone gives `<key>|`: the ID
    /// of the stored key, naming `destination`, as an aggregate fetch and a fault give it
    /// (the key alone decides `.null`).
    static func objectIDColumn(key: String, destination: EntityDescription) -> String {
        guard destination.hierarchy.kindIndexes.count > 1 else { return key }
        return "\(key) || '|' || coalesce(\(kindSubquery(key: key, destination: destination)), '')"
    }

    /// `(SELECT k._entity FROM <destination's table> k WHERE k._id = <key>)`.
    static func kindSubquery(key: String, destination: EntityDescription) -> String {
        "(SELECT k.\(EntityHierarchy.kindColumn) FROM \(quoted(destination.tableName)) k WHERE k._id = \(key))"
    }

    /// Reads a column written by ``objectIDColumn(key:destination:)`` as an `.objectID`.
    static func objectIDReader(_ destination: EntityDescription, model: ObjectModel) -> (OpaquePointer, Int32) throws(StrataError) -> PropertyValue {
        guard destination.hierarchy.kindIndexes.count > 1 else {
            return { handle, index in RawStatement.integer(handle, index).map { .objectID(ObjectID(entity: destination, key: $0)) } ?? .null }
        }
        return { handle, index in
            guard let text = RawStatement.text(handle, index), let bar = text.firstIndex(of: "|"), let key = Int64(text[..<bar]) else { return .null }
            return .objectID(ObjectID(entity: destination.kind(named: String(text[text.index(after: bar)...]), in: model), key: key))
        }
    }

    /// Reads a column holding `attribute` (of `entity`) as stored, decoding a transformable.
    static func attributeReader(_ attribute: AttributeDescription, of entity: EntityDescription) -> (OpaquePointer, Int32) throws(StrataError) -> PropertyValue {
        { (handle: OpaquePointer, index: Int32) throws(StrataError) -> PropertyValue in
            let stored = RawStatement.value(handle, index, type: attribute.type)
            guard stored.fits(attribute.type) else { throw PropertyValue.misfit(stored, attribute: attribute, entity: entity, objectID: nil) }
            guard attribute.type == .transformable, case .data(let bytes) = stored else { return stored }
            do {
                guard let transformer = attribute.transformer else { throw StrataError(.undecodableValue, "No transformer.") }
                return .transformed(TransformedValue(data: bytes, value: try transformer.decode(bytes)))
            } catch {
                throw StrataError(.undecodableValue, "The stored value of \(entity.name).\(attribute.name) does not decode: \(error)", entity: entity.name, key: attribute.name, underlying: error)
            }
        }
    }

    /// Runs a read of `plan`'s rows; a text search SQLite cannot parse is `.malformedPredicate`.
    func read<T>(_ plan: FetchPlan, _ body: (Database) throws -> T) throws(StrataError) -> T {
        do {
            return try read(body)
        } catch {
            throw plan.search?.error(error) ?? error
        }
    }
}

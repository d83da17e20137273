import Foundation
import GRDB
import GRDBSQLite

extension StoreCoordinator {
    /// Writes the rows of `request` in one transaction and returns their new IDs, in order.
    ///
    /// - Throws: `.invalidRequest` for unknown keys or values of the wrong kind, `.validation`
    ///   for a nil required attribute, `.conflict` for a unique collision; nothing is written then.
    ///
    /// For example:
    /// ```swift
    /// let ids = try coordinator.execute(BatchInsertRequest(entityName: "Tag", objects: [["label": .string("red")]]))
    /// ```
    public func execute(_ request: BatchInsertRequest) throws(StrataError) -> [ObjectID] {
        guard let entity = model.entity(named: request.entityName) else {
            throw StrataError(.invalidRequest, "The model has no entity named \(request.entityName).", entity: request.entityName)
        }
        let plan = try BatchInsertPlan(entity: entity, keys: request.keys)
        for row in request.rows where row.count != request.keys.count {
            throw StrataError(.invalidRequest, "A batch insert row has \(row.count) values for \(request.keys.count) keys.", entity: entity.name)
        }
        do {
            return try write { db in
                let ids = try plan.run(request.rows, keys: keys, sql: saveSQL, db)
                if recordsHistory { try HistoryWriter.record(ChangeSet(inserted: Set(ids)), kind: .batchInsert, db) }
                return ids
            }
        } catch {
            throw Self.storeError(error)
        }
    }
}

/// Where each column of a batch insert gets its value: from the request, or a default.
private struct BatchInsertPlan {
    enum Source { case given(Int), constant(PropertyValue) }

    let entity: EntityDescription
    let columnNames: [String]
    let sources: [Source]
    let kinds: [AttributeType?]   // nil for foreign keys
    /// For each column: the attribute name when a nil value is not allowed.
    let requiredNames: [String?]

    init(entity: EntityDescription, keys: [String]) throws(StrataError) {
        var position: [String: Int] = [:]
        for (i, key) in keys.enumerated() {
            switch entity.propertyIndex[key] {
            case .attribute?: position[key] = i
            case .relationship(let r)? where !entity.relationships[r].isToMany:
                guard case .foreignKey = entity.relationships[r].storage else { fallthrough }
                position[key] = i
            default:
                throw StrataError(.invalidRequest, "A batch insert into \(entity.name) cannot set \(key).", entity: entity.name, key: key)
            }
        }
        var names: [String] = []
        var sources: [Source] = []
        var kinds: [AttributeType?] = []
        var required: [String?] = []
        for column in entity.columns {
            switch column {
            case .attribute(let i):
                let attribute = entity.attributes[i]
                sources.append(position[attribute.name].map(Source.given) ?? .constant(attribute.defaultValue))
                kinds.append(attribute.type)
                required.append(attribute.isOptional ? nil : attribute.name)
            case .foreignKey(let r):
                sources.append(position[entity.relationships[r].name].map(Source.given) ?? .constant(.null))
                kinds.append(nil)
                required.append(entity.relationships[r].isOptional ? nil : entity.relationships[r].name)
            case .order:
                continue
            }
            names.append(quoted(StoreSchema.columnName(column, in: entity)))
        }
        self.entity = entity
        self.columnNames = names
        self.sources = sources
        self.kinds = kinds
        self.requiredNames = required
    }

    func run(_ rows: [[PropertyValue]], keys: StoreKeys, sql: SaveSQL, _ db: Database) throws -> [ObjectID] {
        guard !rows.isEmpty else { return [] }
        let base = try keys.reserve(rows.count, of: entity, sql: sql, db) - 1   // nothing is written if a row fails
        let sql = "INSERT INTO \(quoted(entity.name)) (_id, _version, \(columnNames.joined(separator: ", "))) VALUES (?, 1\(String(repeating: ", ?", count: columnNames.count)))"
        let statement = try db.makeStatement(sql: sql)
        let handle = statement.sqliteStatement
        var ids: [ObjectID] = []
        ids.reserveCapacity(rows.count)
        for (n, row) in rows.enumerated() {
            let key = base + Int64(n) + 1
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, key)
            for (c, source) in sources.enumerated() {
                let value: PropertyValue
                switch source {
                case .given(let i): value = row[i]
                case .constant(let v): value = v
                }
                if value.isNull, let name = requiredNames[c] {
                    throw StrataError(.validation, "\(entity.name).\(name) is required but row \(n) has nil.", entity: entity.name, key: name)
                }
                try Self.bind(value, kind: kinds[c], to: handle, at: Int32(c + 2), entity: entity)
            }
            let code = sqlite3_step(handle)
            guard code == SQLITE_DONE else {
                let message = String(cString: sqlite3_errmsg(db.sqliteConnection))
                if code & 0xff == SQLITE_CONSTRAINT {
                    throw StrataError(.conflict, "A batch insert row collides with a stored unique value: \(message)", entity: entity.name, sql: sql)
                }
                var error = StoreCoordinator.storeError(DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql), sql: sql)  // a full disk is .storeFull
                error.entity = entity.name
                throw error
            }
            ids.append(ObjectID(entity: entity, key: key))
        }
        sqlite3_reset(handle)
        return ids
    }

    /// Binds one value with the raw C API, refusing what a batch insert cannot store.
    private static func bind(_ value: PropertyValue, kind: AttributeType?, to handle: OpaquePointer, at index: Int32, entity: EntityDescription) throws {
        switch value {
        case .objectID(let id) where id.isTemporary:
            throw StrataError(.invalidRequest, "A batch insert cannot point at unsaved object \(id).", entity: entity.name, objectID: id)
        case .objectIDs:
            throw StrataError(.invalidRequest, "A batch insert cannot set a to-many relationship.", entity: entity.name)
        default:
            if let kind, let problem = value.storageProblem(for: kind) {
                throw StrataError(.unencodableValue, "A batch insert into \(entity.name) cannot store \(value): \(problem).", entity: entity.name)
            }
            RawStatement.bind(value, to: handle, at: index)
        }
    }
}

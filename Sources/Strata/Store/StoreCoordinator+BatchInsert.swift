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
        guard !entity.isAbstract else {
            throw StrataError(.invalidRequest, "\(entity.name) is abstract: insert objects of its subentities instead.", entity: entity.name)
        }
        let plan = try BatchInsertPlan(entity: entity, keys: request.keys)
        for row in request.rows where row.count != request.keys.count {
            throw StrataError(.invalidRequest, "A batch insert row has \(row.count) values for \(request.keys.count) keys.", entity: entity.name)
        }
        let rows = request.rows
        let write: BatchInsertRequest.RowHandler = request.handler?.write ?? { @Sendable n, values in values = rows[n] }
        do {
            return try self.write { db in
                let ids = try plan.run(count: request.rowCount, write, keys: keys, sql: saveSQL, db)
                // Derived values are in the rows; the insert returns IDs, not values: the log is only emptied.
                if !saveSQL.derivedReads.isEmpty { _ = try DerivedRead.drain(saveSQL.derivedReads, flush: saveSQL.derivedFlush, model: model, db) }
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

    let entity: EntityDescription
    let columnNames: [String]
    /// For each column: the position of its value in a request row, or -1 when the request
    /// does not give it (then `constants` holds its value).
    let givenIndex: [Int]
    /// For each column not given: its value (the attribute's default, or nil for a to-one).
    let constants: [PropertyValue]
    let kinds: [AttributeType?]   // nil for foreign keys
    /// For each column: the attribute name when a nil value is not allowed.
    let requiredNames: [String?]
    /// Values per row: one per key of the request.
    let width: Int

    init(entity: EntityDescription, keys: [String]) throws(StrataError) {
        var position: [String: Int] = [:]
        for (i, key) in keys.enumerated() {
            switch entity.propertyIndex[key] {
            case .attribute(let a)? where entity.attributes[a].isDerived:
                throw StrataError(.invalidRequest, "A batch insert into \(entity.name) cannot set \(key): it is derived, and the store computes it.", entity: entity.name, key: key)
            case .attribute?: position[key] = i
            case .relationship(let r)? where !entity.relationships[r].isToMany:
                guard case .foreignKey = entity.relationships[r].storage else { fallthrough }
                position[key] = i
            default:
                throw StrataError(.invalidRequest, "A batch insert into \(entity.name) cannot set \(key).", entity: entity.name, key: key)
            }
        }
        var names: [String] = []
        var givenIndex: [Int] = []
        var constants: [PropertyValue] = []
        var kinds: [AttributeType?] = []
        var required: [String?] = []
        for column in entity.columns {
            switch column {
            case .attribute(let i):
                let attribute = entity.attributes[i]
                givenIndex.append(position[attribute.name] ?? -1)
                constants.append(position[attribute.name] == nil ? attribute.defaultValue : .null)
                kinds.append(attribute.type)
                required.append(attribute.isOptional ? nil : attribute.name)
            case .foreignKey(let r):
                givenIndex.append(position[entity.relationships[r].name] ?? -1)
                constants.append(.null)
                kinds.append(nil)
                required.append(entity.relationships[r].isOptional ? nil : entity.relationships[r].name)
            case .order:
                continue
            }
            names.append(quoted(StoreSchema.columnName(column, in: entity)))
        }
        self.entity = entity
        self.columnNames = names
        self.givenIndex = givenIndex
        self.constants = constants
        self.kinds = kinds
        self.requiredNames = required
        self.width = keys.count
    }

    /// Inserts `count` rows, each written by `write` into one reused array.
    func run(count: Int, _ write: BatchInsertRequest.RowHandler, keys: StoreKeys, sql: SaveSQL, _ db: Database) throws -> [ObjectID] {
        guard count > 0 else { return [] }
        let base = try keys.reserve(count, of: entity, sql: sql, db) - 1   // nothing is written if a row fails
        // A row of a hierarchy's table names its entity (a literal: the binding positions stay the same).
        let kind = entity.hierarchy.storesKind ? [(EntityHierarchy.kindColumn, "'\(entity.name)'")] : []
        let names = ["_id", "_version"] + kind.map(\.0) + columnNames
        let values = ["?", "1"] + kind.map(\.1) + columnNames.map { _ in "?" }
        let sql = "INSERT INTO \(quoted(entity.tableName)) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        let statement = try db.makeStatement(sql: sql)
        let handle = statement.sqliteStatement
        var ids: [ObjectID] = []
        ids.reserveCapacity(count)
        var row = [PropertyValue](repeating: .null, count: width)
        for n in 0..<count {
            do {
                try write(n, &row)
            } catch let error as StrataError {
                throw error
            } catch {
                throw StrataError(.invalidRequest, "The batch insert's row handler failed at row \(n): \(error)", entity: entity.name, underlying: error)
            }
            guard row.count == width else {
                throw StrataError(.invalidRequest, "A batch insert row has \(row.count) values for \(width) keys.", entity: entity.name)
            }
            let key = base + Int64(n) + 1
            sqlite3_reset(handle)
            sqlite3_bind_int64(handle, 1, key)
            // Values are bound where they lie (borrowed through buffer pointers): copying each
            // out of its array cost a retain, a release and an outlined copy per column.
            try row.withUnsafeBufferPointer { values in
                try constants.withUnsafeBufferPointer { constants in
                    for c in 0..<givenIndex.count {
                        let i = givenIndex[c]
                        try bindColumn(i >= 0 ? values[i] : constants[c], column: c, row: n, to: handle)
                    }
                }
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

    /// Binds the value of column `column` (statement parameter `column + 2`), refusing a nil
    /// for a required key.
    @inline(__always)
    private func bindColumn(_ value: PropertyValue, column: Int, row n: Int, to handle: OpaquePointer) throws {
        if value.isNull, let name = requiredNames[column] {
            throw StrataError(.validation, "\(entity.name).\(name) is required but row \(n) has nil.", entity: entity.name, key: name)
        }
        try Self.bind(value, kind: kinds[column], to: handle, at: Int32(column + 2), entity: entity)
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

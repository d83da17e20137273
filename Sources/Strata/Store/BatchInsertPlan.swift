import Foundation
import GRDB
import GRDBSQLite

/// Where each column of a batch insert gets its value (from the request, or a default) and
/// what kind of value it takes, worked out once per request; ``run(count:_:keys:sql:_:)`` then checks
/// and binds each value in one `switch` over it.
///
/// One pass: each value is matched once, where it lies in the row, instead of being copied
/// out of the row, matched by a check and matched again by two binds (each match of a value
/// copied and destroyed it, while `PropertyValue` was address-only).
struct BatchInsertPlan {

    /// What a column's values must be: each value's case is compared with its column's kind
    /// where the value is bound (batch update's rule, `StoreCoordinator+BatchUpdate.swift`).
    enum Kind: UInt8 {
        /// Integer attributes: an `.integer` in the type's range.
        case int16, int32, int64
        /// A `double` attribute: a `.double`, or an `.integer` (stored as a double).
        case double
        /// Attributes that take only the value of their own type.
        case bool, string, date, uuid, url, decimal
        /// A `data` attribute: a `.data`.
        case data
        /// A transformable attribute: a `.transformed`, or the `.data` of one.
        case transformable
        /// A to-one's foreign key: an `.objectID` of a saved object of the destination entity.
        case toOne

        init(_ type: AttributeType) {
            switch type {
            case .int16: self = .int16
            case .int32: self = .int32
            case .int64: self = .int64
            case .double: self = .double
            case .bool: self = .bool
            case .string: self = .string
            case .date: self = .date
            case .data: self = .data
            case .uuid: self = .uuid
            case .url: self = .url
            case .decimal: self = .decimal
            case .transformable: self = .transformable
            }
        }
    }

    let entity: EntityDescription
    let columnNames: [String]
    /// For each column: the position of its value in a request row, or -1 when the request
    /// does not give it (then `constants` holds its value).
    let givenIndex: [Int]
    /// For each column not given: its value (the attribute's default, or nil for a to-one).
    let constants: [PropertyValue]
    /// For each column: its attribute type (nil for a foreign key), for the messages of refused values.
    let types: [AttributeType?]
    /// For each column: what its values must be.
    let kinds: [Kind]
    /// For each column: its property's name, for the messages of refused values.
    let propertyNames: [String]
    /// For each column: a to-one's destination entity (nil for an attribute).
    let destinations: [EntityDescription?]
    /// For each column: the attribute name when a nil value is not allowed.
    let requiredNames: [String?]
    /// Values per row: one per key of the request.
    let width: Int

    init(entity: EntityDescription, model: ObjectModel, keys: [String]) throws(StrataError) {
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
        var types: [AttributeType?] = []
        var kinds: [Kind] = []
        var propertyNames: [String] = []
        var destinations: [EntityDescription?] = []
        var required: [String?] = []
        for column in entity.columns {
            switch column {
            case .attribute(let i):
                let attribute = entity.attributes[i]
                givenIndex.append(position[attribute.name] ?? -1)
                constants.append(position[attribute.name] == nil ? attribute.defaultValue : .null)
                types.append(attribute.type)
                kinds.append(Kind(attribute.type))
                propertyNames.append(attribute.name)
                destinations.append(nil)
                required.append(attribute.isOptional ? nil : attribute.name)
            case .foreignKey(let r):
                givenIndex.append(position[entity.relationships[r].name] ?? -1)
                constants.append(.null)
                types.append(nil)
                kinds.append(.toOne)
                propertyNames.append(entity.relationships[r].name)
                destinations.append(model.entities[entity.relationships[r].destinationIndex])
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
        self.types = types
        self.kinds = kinds
        self.propertyNames = propertyNames
        self.destinations = destinations
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
            // Values are bound where they lie (borrowed through buffer pointers, never copied
            // into a temporary first).
            try row.withUnsafeBufferPointer { values in
                try constants.withUnsafeBufferPointer { constants in
                    for c in 0..<givenIndex.count {
                        let i = givenIndex[c]
                        if i >= 0 {
                            try bind(values[i], column: c, row: n, to: handle)
                        } else {
                            try bind(constants[c], column: c, row: n, to: handle)
                        }
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
        try checkTargets(first: base + 1, count: count, db)
        return ids
    }

    /// A to-one naming a row the store does not hold would fail only at the commit (the
    /// foreign keys are deferred), as a bare constraint error. SQLite's count of unresolved
    /// foreign keys (O(1)) says whether any row of this insert names one; only then a query
    /// finds the first, for an `.objectNotFound` naming the key, the row and the target, as a
    /// batch update reports it.
    private func checkTargets(first: Int64, count: Int, _ db: Database) throws {
        var unresolved: Int32 = 0, highest: Int32 = 0
        sqlite3_db_status(db.sqliteConnection, SQLITE_DBSTATUS_DEFERRED_FKS, &unresolved, &highest, 0)
        guard unresolved != 0 else { return }
        for (c, destination) in destinations.enumerated() {
            guard let destination else { continue }
            let column = columnNames[c]   // quoted
            let sql = """
                SELECT t._id, t.\(column) FROM \(quoted(entity.tableName)) t WHERE t._id BETWEEN ? AND ? AND t.\(column) IS NOT NULL \
                AND NOT EXISTS (SELECT 1 FROM \(quoted(destination.tableName)) d WHERE d._id = t.\(column)) ORDER BY t._id LIMIT 1
                """
            guard let row = try Row.fetchOne(db, sql: sql, arguments: [first, first + Int64(count) - 1]) else { continue }
            let key: Int64 = row[0], target = ObjectID(entity: destination, key: row[1])
            throw StrataError(.objectNotFound, "A batch insert of \(entity.name).\(propertyNames[c]) points at \(target) (row \(key - first)), which is not in the store; nothing was written.",
                              entity: entity.name, key: propertyNames[c], objectID: target)
        }
    }

    /// Checks the value of column `column` and binds it (statement parameter `column + 2`):
    /// a nil for a required key is `.validation`; a value of another kind than the column's
    /// (text for an integer, a to-many value, an object of another entity for a to-one), or an
    /// unsaved object, is `.invalidRequest`; a value that would not read back the same (an
    /// integer out of an `int16`/`int32` range, a NaN date, a NaN or over-long decimal) is
    /// `.unencodableValue`. An `.integer` for a `double` is stored as a double, the `.data` of a
    /// transformable as given.
    @inline(__always)
    private func bind(_ value: PropertyValue, column: Int, row n: Int, to handle: OpaquePointer) throws(StrataError) {
        let index = Int32(column + 2)
        let kind = kinds[column]
        switch value {
        case .null:
            if let name = requiredNames[column] {
                throw StrataError(.validation, "\(entity.name).\(name) is required but row \(n) has nil.", entity: entity.name, key: name)
            }
            sqlite3_bind_null(handle, index)
        case .integer(let v):
            switch kind {
            case .int16 where Int16(exactly: v) == nil, .int32 where Int32(exactly: v) == nil:
                throw unencodable(.integer(v), column: column)
            case .int16, .int32, .int64:
                sqlite3_bind_int64(handle, index, v)
            case .double:
                RawStatement.bindDouble(Double(v), handle, index)
            default:
                throw mismatch(.integer(v), column: column, row: n)
            }
        case .string(let v):
            guard kind == .string else { throw mismatch(value, column: column, row: n) }
            RawStatement.bindText(v, handle, index)
        case .date(let v):
            guard kind == .date else { throw mismatch(value, column: column, row: n) }
            let seconds = v.timeIntervalSince1970
            if seconds.isNaN { throw unencodable(.date(v), column: column) }
            sqlite3_bind_double(handle, index, seconds)
        case .objectID(let id):
            guard kind == .toOne, let destination = destinations[column] else { throw mismatch(value, column: column, row: n) }
            if id.isTemporary {
                throw StrataError(.invalidRequest, "A batch insert cannot point at unsaved object \(id).", entity: entity.name, key: propertyNames[column], objectID: id)
            }
            guard id.entity.isKind(of: destination) else {
                throw StrataError(.invalidRequest, "\(entity.name).\(propertyNames[column]) points at \(destination.name), not at \(id.entity.name) (row \(n)).",
                                  entity: entity.name, key: propertyNames[column], objectID: id)
            }
            sqlite3_bind_int64(handle, index, id.key)
        case .objectIDs:
            throw mismatch(value, column: column, row: n)
        case .decimal(let v):
            guard kind == .decimal else { throw mismatch(value, column: column, row: n) }
            if PropertyValue.decimal(v).storageProblem(for: .decimal) != nil { throw unencodable(.decimal(v), column: column) }
            RawStatement.bindText(v.description, handle, index)
        case .double(let v):
            guard kind == .double else { throw mismatch(value, column: column, row: n) }
            RawStatement.bindDouble(v, handle, index)
        case .bool(let v):
            guard kind == .bool else { throw mismatch(value, column: column, row: n) }
            sqlite3_bind_int64(handle, index, v ? 1 : 0)
        case .data(let v):
            guard kind == .data || kind == .transformable else { throw mismatch(value, column: column, row: n) }
            RawStatement.bindBlob(v, handle, index)
        case .uuid(let v):
            guard kind == .uuid else { throw mismatch(value, column: column, row: n) }
            RawStatement.bindText(v.uuidString, handle, index)
        case .url(let v):
            guard kind == .url else { throw mismatch(value, column: column, row: n) }
            RawStatement.bindText(v.absoluteString, handle, index)
        case .transformed(let v):
            guard kind == .transformable else { throw mismatch(value, column: column, row: n) }
            RawStatement.bindBlob(v.data, handle, index)
        }
    }

    /// The error for `value`, which column `column`'s attribute could not read back the same
    /// (the message of `PropertyValue.storageProblem(for:)`).
    private func unencodable(_ value: PropertyValue, column: Int) -> StrataError {
        let problem = types[column].flatMap { value.storageProblem(for: $0) } ?? "it would not read back the same"
        return StrataError(.unencodableValue, "A batch insert into \(entity.name) cannot store \(value): \(problem).", entity: entity.name)
    }

    /// The error for `value`, of another kind than column `column` takes (batch update's
    /// message, with the row).
    private func mismatch(_ value: PropertyValue, column: Int, row n: Int) -> StrataError {
        let name = propertyNames[column]
        let message = if let type = types[column] {
            "\(entity.name).\(name) is of type \(type.rawValue) and cannot hold \(value) (row \(n))."
        } else {
            "\(entity.name).\(name) is a to-one and takes an object ID or nil, not \(value) (row \(n))."
        }
        return StrataError(.invalidRequest, message, entity: entity.name, key: name)
    }
}

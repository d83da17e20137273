import Foundation
import GRDB
import GRDBSQLite

/// Where each column of a batch insert gets its value (from the request, or a default) and
/// how it is checked, worked out once per request; ``run(count:_:keys:sql:_:)`` then checks
/// and binds each value in one `switch` over it.
///
/// One pass: each value is matched once, where it lies in the row, instead of being copied
/// out of the row, matched by a check and matched again by two binds (each match of a value
/// copied and destroyed it, while `PropertyValue` was address-only).
struct BatchInsertPlan {

    /// The extra check a column's values get, beyond nil-for-required and object IDs.
    enum Check {
        /// An attribute whose integers may be anything an `Int64` holds.
        case attribute
        /// An `int16` attribute: integers out of its range are refused.
        case int16
        /// An `int32` attribute: integers out of its range are refused.
        case int32
        /// A to-one's foreign key: no attribute checks (a date or decimal here is stored as given).
        case foreignKey
    }

    let entity: EntityDescription
    let columnNames: [String]
    /// For each column: the position of its value in a request row, or -1 when the request
    /// does not give it (then `constants` holds its value).
    let givenIndex: [Int]
    /// For each column not given: its value (the attribute's default, or nil for a to-one).
    let constants: [PropertyValue]
    /// For each column: its attribute type (nil for a foreign key), for the messages of refused values.
    let kinds: [AttributeType?]
    /// For each column: the extra check of its values.
    let checks: [Check]
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
        var checks: [Check] = []
        var required: [String?] = []
        for column in entity.columns {
            switch column {
            case .attribute(let i):
                let attribute = entity.attributes[i]
                givenIndex.append(position[attribute.name] ?? -1)
                constants.append(position[attribute.name] == nil ? attribute.defaultValue : .null)
                kinds.append(attribute.type)
                checks.append(attribute.type == .int16 ? .int16 : attribute.type == .int32 ? .int32 : .attribute)
                required.append(attribute.isOptional ? nil : attribute.name)
            case .foreignKey(let r):
                givenIndex.append(position[entity.relationships[r].name] ?? -1)
                constants.append(.null)
                kinds.append(nil)
                checks.append(.foreignKey)
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
        self.checks = checks
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
        return ids
    }

    /// Checks the value of column `column` and binds it (statement parameter `column + 2`):
    /// a nil for a required key is `.validation`; an unsaved object or a to-many value is
    /// `.invalidRequest`; a value that would not read back the same (an integer out of an
    /// `int16`/`int32` range, a NaN date, a NaN or over-long decimal) is `.unencodableValue`.
    @inline(__always)
    private func bind(_ value: PropertyValue, column: Int, row n: Int, to handle: OpaquePointer) throws(StrataError) {
        let index = Int32(column + 2)
        switch value {
        case .null:
            if let name = requiredNames[column] {
                throw StrataError(.validation, "\(entity.name).\(name) is required but row \(n) has nil.", entity: entity.name, key: name)
            }
            sqlite3_bind_null(handle, index)
        case .integer(let v):
            switch checks[column] {
            case .int16 where Int16(exactly: v) == nil, .int32 where Int32(exactly: v) == nil:
                throw unencodable(.integer(v), column: column)
            default:
                sqlite3_bind_int64(handle, index, v)
            }
        case .string(let v):
            RawStatement.bindText(v, handle, index)
        case .date(let v):
            let seconds = v.timeIntervalSince1970
            if seconds.isNaN, checks[column] != .foreignKey { throw unencodable(.date(v), column: column) }
            sqlite3_bind_double(handle, index, seconds)
        case .objectID(let id):
            if id.isTemporary {
                throw StrataError(.invalidRequest, "A batch insert cannot point at unsaved object \(id).", entity: entity.name, objectID: id)
            }
            sqlite3_bind_int64(handle, index, id.key)
        case .objectIDs:
            throw StrataError(.invalidRequest, "A batch insert cannot set a to-many relationship.", entity: entity.name)
        case .decimal(let v):
            if checks[column] != .foreignKey, let kind = kinds[column], PropertyValue.decimal(v).storageProblem(for: kind) != nil {
                throw unencodable(.decimal(v), column: column)
            }
            RawStatement.bindText(v.description, handle, index)
        case .double(let v):
            RawStatement.bindDouble(v, handle, index)
        case .bool(let v):
            sqlite3_bind_int64(handle, index, v ? 1 : 0)
        case .data(let v):
            RawStatement.bindBlob(v, handle, index)
        case .uuid(let v):
            RawStatement.bindText(v.uuidString, handle, index)
        case .url(let v):
            RawStatement.bindText(v.absoluteString, handle, index)
        case .transformed(let v):
            RawStatement.bindBlob(v.data, handle, index)
        }
    }

    /// The error for `value`, which column `column`'s attribute could not read back the same
    /// (the message of `PropertyValue.storageProblem(for:)`).
    private func unencodable(_ value: PropertyValue, column: Int) -> StrataError {
        let problem = kinds[column].flatMap { value.storageProblem(for: $0) } ?? "it would not read back the same"
        return StrataError(.unencodableValue, "A batch insert into \(entity.name) cannot store \(value): \(problem).", entity: entity.name)
    }
}

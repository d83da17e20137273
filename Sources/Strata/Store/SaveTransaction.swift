import GRDB
import GRDBSQLite
import OrderedCollections

/// What a save wrote: the primary keys given to inserted objects.
struct SaveOutcome {
    var assignedKeys: [ObjectIdentifier: Int64] = [:]
}

/// Writes one root save in one transaction. Built and run on the saving context's queue
/// (objects are read while the write runs; the coordinator's write is synchronous).
struct SaveTransaction {
    let model: ObjectModel
    let inserted: [ManagedObject]
    let updated: [ManagedObject]
    let deleted: [ManagedObject]

    /// Prepared statements of this save, built once per entity (inserts) and per set of
    /// changed columns (updates) rather than per row.
    private final class Statements {
        var inserts: [Int: Statement] = [:]
        var updates: [UpdateShape: Statement] = [:]
    }

    private struct UpdateShape: Hashable {
        var entity: Int
        var columns: [Int]
    }

    func run(_ db: Database) throws -> SaveOutcome {
        var outcome = SaveOutcome()
        try assignKeys(db, &outcome)
        var conflicts: [SaveConflict] = []
        let statements = Statements()
        for object in inserted { try insertRow(object, db, outcome, statements) }
        for object in updated { try updateRow(object, db, outcome, &conflicts, statements) }
        for object in deleted { try deleteRow(object, db, &conflicts) }
        if !conflicts.isEmpty {
            throw StrataError(.conflict, "The save conflicts with changes made in the store since the objects were read: \(conflicts.map(\.description).joined(separator: "; "))", conflicts: conflicts)
        }
        for object in inserted + updated { try writeRelationshipTables(object, db, outcome) }
        return outcome
    }

    // MARK: Keys

    /// Gives every inserted object its primary key: one past the highest ever used.
    private func assignKeys(_ db: Database, _ outcome: inout SaveOutcome) throws {
        var byEntity: [Int: [ManagedObject]] = [:]
        for object in inserted { byEntity[object.entity.index, default: []].append(object) }
        for (entityIndex, objects) in byEntity {
            let entity = model.entities[entityIndex]
            let stored = try Int64.fetchOne(db, sql: "SELECT max_key FROM \(StoreSchema.keysTable) WHERE entity = ?", arguments: [entity.name])
            let base = try stored ?? Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(_id), 0) FROM \(quoted(entity.name))") ?? 0
            for (offset, object) in objects.enumerated() { outcome.assignedKeys[ObjectIdentifier(object)] = base + Int64(offset) + 1 }
            try db.execute(sql: "INSERT OR REPLACE INTO \(StoreSchema.keysTable) (entity, max_key) VALUES (?, ?)", arguments: [entity.name, base + Int64(objects.count)])
        }
    }

    private func key(of object: ManagedObject, _ outcome: SaveOutcome) -> Int64? {
        if object.objectID.isTemporary { return outcome.assignedKeys[ObjectIdentifier(object)] }
        return object.objectID.key
    }

    /// The stored form of a to-one foreign key, without firing faults or loads.
    private func foreignKey(_ object: ManagedObject, _ index: Int, _ outcome: SaveOutcome) -> Int64? {
        switch object.relationValues[index] {
        case .toOne(let target): return target.flatMap { key(of: $0, outcome) }
        case .toOneID(let id): return id?.key
        default: return nil
        }
    }

    private func bindForeignKey(_ object: ManagedObject, _ index: Int, _ outcome: SaveOutcome, _ handle: OpaquePointer, _ position: Int32) {
        if let key = foreignKey(object, index, outcome) { sqlite3_bind_int64(handle, position, key) } else { sqlite3_bind_null(handle, position) }
    }

    // MARK: Rows

    private func insertRow(_ object: ManagedObject, _ db: Database, _ outcome: SaveOutcome, _ statements: Statements) throws {
        let entity = object.entity
        let statement: Statement
        if let cached = statements.inserts[entity.index] {
            statement = cached
        } else {
            var names = ["_id", "_version"]
            for column in entity.columns {
                if case .order = column { continue }
                names.append(quoted(StoreSchema.columnName(column, in: entity)))
            }
            statement = try db.cachedStatement(sql: "INSERT INTO \(quoted(entity.name)) (\(names.joined(separator: ", "))) VALUES (?, 1\(String(repeating: ", ?", count: names.count - 2)))")
            statements.inserts[entity.index] = statement
        }
        let handle = statement.sqliteStatement
        sqlite3_bind_int64(handle, 1, key(of: object, outcome) ?? 0)
        var position: Int32 = 2
        for column in entity.columns {
            switch column {
            case .attribute(let i): RawStatement.bind(object.attributeValues[i], to: handle, at: position)
            case .foreignKey(let i): bindForeignKey(object, i, outcome, handle, position)
            case .order: continue
            }
            position += 1
        }
        do {
            try RawStatement.execute(statement, db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY || error.resultCode == .SQLITE_CONSTRAINT {
            let key = uniqueKey(in: error, entity: entity)
            throw StrataError(.conflict, "Inserting \(entity.name) collides with a stored unique value\(key.map { " of \($0)" } ?? "").",
                              entity: entity.name, key: key, objectID: object.objectID, sql: statement.sql, underlying: error)
        }
    }

    /// The key named by a "UNIQUE constraint failed: Entity.key" message.
    private func uniqueKey(in error: DatabaseError, entity: EntityDescription) -> String? {
        guard let message = error.message, let range = message.range(of: "\(entity.name).") else { return nil }
        return String(message[range.upperBound...].prefix { $0 != "," && $0 != " " })
    }

    private func updateRow(_ object: ManagedObject, _ db: Database, _ outcome: SaveOutcome, _ conflicts: inout [SaveConflict], _ statements: Statements) throws {
        let entity = object.entity
        var shape = UpdateShape(entity: entity.index, columns: [])
        for (c, column) in entity.columns.enumerated() {
            switch column {
            case .attribute(let i) where object.changedProperties.contains(i): shape.columns.append(c)
            case .foreignKey(let i) where object.changedProperties.contains(entity.attributes.count + i): shape.columns.append(c)
            default: continue
            }
        }
        let statement: Statement
        if let cached = statements.updates[shape] {
            statement = cached
        } else {
            let assignments = shape.columns.map { "\(quoted(StoreSchema.columnName(entity.columns[$0], in: entity))) = ?" } + ["_version = _version + 1"]
            statement = try db.cachedStatement(sql: "UPDATE \(quoted(entity.name)) SET \(assignments.joined(separator: ", ")) WHERE _id = ? AND _version = ?")
            statements.updates[shape] = statement
        }
        let handle = statement.sqliteStatement
        var position: Int32 = 1
        for c in shape.columns {
            switch entity.columns[c] {
            case .attribute(let i): RawStatement.bind(object.attributeValues[i], to: handle, at: position)
            case .foreignKey(let i): bindForeignKey(object, i, outcome, handle, position)
            case .order: break
            }
            position += 1
        }
        sqlite3_bind_int64(handle, position, object.objectID.key)
        sqlite3_bind_int64(handle, position + 1, object.rowVersion)
        do {
            try RawStatement.execute(statement, db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.resultCode == .SQLITE_CONSTRAINT {
            let key = uniqueKey(in: error, entity: entity)
            throw StrataError(.conflict, "Updating \(entity.name) collides with a stored unique value\(key.map { " of \($0)" } ?? "").",
                              entity: entity.name, key: key, objectID: object.objectID, sql: statement.sql, underlying: error)
        }
        if db.changesCount != 1 { conflicts += try describeConflict(object, db) }
    }

    private func deleteRow(_ object: ManagedObject, _ db: Database, _ conflicts: inout [SaveConflict]) throws {
        let entity = object.entity
        try db.cachedStatement(sql: "DELETE FROM \(quoted(entity.name)) WHERE _id = ? AND _version = ?")
            .execute(arguments: [object.objectID.key, object.rowVersion])
        if db.changesCount != 1 {
            let stillThere = try Bool.fetchOne(db, sql: "SELECT 1 FROM \(quoted(entity.name)) WHERE _id = ?", arguments: [object.objectID.key]) ?? false
            if stillThere { conflicts += try describeConflict(object, db) }
        }
        for relationship in entity.relationships {
            guard case .joinTable(let join) = relationship.storage else { continue }
            try db.cachedStatement(sql: "DELETE FROM \(quoted(join.name)) WHERE \(quoted(join.ownColumn)) = ?").execute(arguments: [object.objectID.key])
        }
    }

    /// The conflicting keys of an object whose row changed (or vanished) since it was read.
    private func describeConflict(_ object: ManagedObject, _ db: Database) throws -> [SaveConflict] {
        let entity = object.entity
        let reader = RowReader(entity: entity, model: model)
        let statement = try db.cachedStatement(sql: "SELECT \(reader.selectList(alias: "t0")) FROM \(quoted(entity.name)) t0 WHERE _id = ?")
        statement.setUncheckedArguments([object.objectID.key])
        var row: RowReader.Contents?
        try RawStatement.forEachRow(statement, db) { row = reader.read($0) }
        guard let stored = row else {
            return [SaveConflict(objectID: object.objectID, key: nil, originalValue: .null, ourValue: .null, storedValue: .null)]
        }
        let original = object.committedAttributes ?? object.attributeValues
        var result: [SaveConflict] = []
        for (i, attribute) in entity.attributes.enumerated() where object.changedProperties.contains(i) || original[i] != stored.attributes[i] {
            result.append(SaveConflict(objectID: object.objectID, key: attribute.name, originalValue: original[i], ourValue: object.attributeValues[i], storedValue: stored.attributes[i]))
        }
        if result.isEmpty {
            result.append(SaveConflict(objectID: object.objectID, key: nil, originalValue: .integer(object.rowVersion), ourValue: .integer(object.rowVersion), storedValue: .integer(stored.version)))
        }
        return result
    }

    // MARK: Join tables and positions

    private func writeRelationshipTables(_ object: ManagedObject, _ db: Database, _ outcome: SaveOutcome) throws {
        let entity = object.entity
        guard let ownKey = key(of: object, outcome) else { return }
        for (index, relationship) in entity.relationships.enumerated() where relationship.isToMany {
            guard object.changedProperties.contains(entity.attributes.count + index) || object.lifecycle.isInserted,
                  case .toMany(let current) = object.relationValues[index] else { continue }
            switch relationship.storage {
            case .joinTable(let join):
                if join.isOwner {
                    var before = OrderedSet<ManagedObject>()
                    if case .toMany(let committed)? = object.committedRelations[index] { before = committed }
                    for gone in before where !current.contains(gone) {
                        guard let other = key(of: gone, outcome) else { continue }
                        try db.cachedStatement(sql: "DELETE FROM \(quoted(join.name)) WHERE source = ? AND target = ?").execute(arguments: [ownKey, other])
                    }
                    for added in current where !before.contains(added) {
                        guard let other = key(of: added, outcome) else { continue }
                        try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(quoted(join.name)) (source, target) VALUES (?, ?)").execute(arguments: [ownKey, other])
                    }
                }
                if let orderColumn = join.ownOrderColumn {
                    let sql = "UPDATE \(quoted(join.name)) SET \(quoted(orderColumn)) = ? WHERE \(quoted(join.ownColumn)) = ? AND \(quoted(join.otherColumn)) = ?"
                    for (position, member) in current.enumerated() {
                        guard let other = key(of: member, outcome) else { continue }
                        try db.cachedStatement(sql: sql).execute(arguments: [position, ownKey, other])
                    }
                }
            case .inverseForeignKey(_, let orderColumn?):
                let destination = model.entities[relationship.destinationIndex]
                let sql = "UPDATE \(quoted(destination.name)) SET \(quoted(orderColumn)) = ? WHERE _id = ?"
                for (position, member) in current.enumerated() where !member.lifecycle.isDeleted {
                    guard let other = key(of: member, outcome) else { continue }
                    try db.cachedStatement(sql: sql).execute(arguments: [position, other])
                }
            default:
                continue
            }
        }
    }
}

extension StoreCoordinator {
    /// Runs a save transaction; nothing is written if it throws.
    func save(_ work: SaveTransaction) throws(StrataError) -> SaveOutcome {
        do {
            return try database.write { db in try work.run(db) }
        } catch {
            throw Self.storeError(error)
        }
    }
}

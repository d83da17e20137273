import GRDB
import GRDBSQLite
import OrderedCollections

/// What a save wrote, per object (by identity).
struct SaveOutcome {
    /// Primary keys given to inserted objects (including objects that became an existing row).
    var assignedKeys: [ObjectIdentifier: Int64] = [:]
    /// Row versions written, where they are not simply 1 (insert) or the read version + 1.
    var versions: [ObjectIdentifier: Int64] = [:]
    /// Rows as they stand after a conflict was resolved by the merge policy: the object takes them.
    var refreshed: [ObjectIdentifier: RowSnapshot] = [:]
    /// Updated objects whose row was deleted in the store (under a policy other than `.error`).
    var vanished: Set<ObjectIdentifier> = []
    /// Deleted objects kept because the `.rollback` policy gave the store's row precedence.
    var undeleted: Set<ObjectIdentifier> = []
    /// Rows whose foreign key still pointed at a deleted row, set to NULL: (row, key, new version).
    var nullified: [(ObjectID, String, Int64)] = []
}

/// Writes one root save in one transaction. Built and run on the saving context's queue
/// (objects are read while the write runs; the coordinator's write is synchronous).
struct SaveTransaction {
    let model: ObjectModel
    let inserted: [ManagedObject]
    let updated: [ManagedObject]
    let deleted: [ManagedObject]
    /// How conflicts are resolved.
    let policy: MergePolicy
    /// Whether the saving context holds an object with this ID (an insert cannot become it).
    let isRegistered: (ObjectID) -> Bool

    /// Prepared statements of this save, built once per entity (inserts) and per set of
    /// changed columns (updates) rather than per row.
    final class Statements {
        var inserts: [Int: Statement] = [:]
        var updates: [UpdateShape: Statement] = [:]
    }

    struct UpdateShape: Hashable {
        var entity: Int
        var columns: [Int]
    }

    func run(_ db: Database) throws -> SaveOutcome {
        var outcome = SaveOutcome()
        try assignKeys(db, &outcome)
        var conflicts: [SaveConflict] = []
        let statements = Statements()
        for object in inserted { try insertRow(object, db, &outcome, statements) }
        for object in updated { try updateRow(object, db, &outcome, &conflicts, statements) }
        for object in deleted { try deleteRow(object, db, &outcome, &conflicts) }
        // After every delete, so rows deleted by this save (a cascade) are not touched first.
        for object in deleted where !outcome.undeleted.contains(ObjectIdentifier(object)) && !object.objectID.isTemporary {
            for relationship in object.entity.relationships {
                if case .inverseForeignKey(let column, _) = relationship.storage {
                    try nullifyReferences(to: object, through: relationship, column: column, db, &outcome)
                }
            }
        }
        if !conflicts.isEmpty {
            throw StrataError(.conflict, "The save conflicts with changes made in the store since the objects were read: \(conflicts.map(\.description).joined(separator: "; "))", conflicts: conflicts)
        }
        for object in inserted + updated where !outcome.vanished.contains(ObjectIdentifier(object)) {
            try writeRelationshipTables(object, db, outcome)
        }
        return outcome
    }

    // MARK: Keys

    /// Gives every inserted object its primary key: one past the highest ever used.
    private func assignKeys(_ db: Database, _ outcome: inout SaveOutcome) throws {
        var byEntity: [Int: [ManagedObject]] = [:]
        for object in inserted where object.objectID.isTemporary { byEntity[object.entity.index, default: []].append(object) }
        for (entityIndex, objects) in byEntity {
            let entity = model.entities[entityIndex]
            let stored = try Int64.fetchOne(db, sql: "SELECT max_key FROM \(StoreSchema.keysTable) WHERE entity = ?", arguments: [entity.name])
            let base = try stored ?? Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(_id), 0) FROM \(quoted(entity.name))") ?? 0
            for (offset, object) in objects.enumerated() { outcome.assignedKeys[ObjectIdentifier(object)] = base + Int64(offset) + 1 }
            try db.execute(sql: "INSERT OR REPLACE INTO \(StoreSchema.keysTable) (entity, max_key) VALUES (?, ?)", arguments: [entity.name, base + Int64(objects.count)])
        }
    }

    func key(of object: ManagedObject, _ outcome: SaveOutcome) -> Int64? {
        if let assigned = outcome.assignedKeys[ObjectIdentifier(object)] { return assigned }
        return object.objectID.primaryKey
    }

    /// The stored form of a to-one foreign key, without firing faults or loads.
    private func foreignKey(_ object: ManagedObject, _ index: Int, _ outcome: SaveOutcome) -> Int64? {
        switch object.relationValues[index] {
        case .toOne(let target): return target.flatMap { key(of: $0, outcome) }
        case .toOneID(let id): return id?.primaryKey
        default: return nil
        }
    }

    func bindForeignKey(_ object: ManagedObject, _ index: Int, _ outcome: SaveOutcome, _ handle: OpaquePointer, _ position: Int32) {
        if let key = foreignKey(object, index, outcome) { sqlite3_bind_int64(handle, position, key) } else { sqlite3_bind_null(handle, position) }
    }

    // MARK: Rows

    private func insertRow(_ object: ManagedObject, _ db: Database, _ outcome: inout SaveOutcome, _ statements: Statements) throws {
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
            if policy != .error, try adoptExistingRow(for: object, db, &outcome, statements) { return }
            throw StrataError(.conflict, "Inserting \(entity.name) collides with a stored unique value\(key.map { " of \($0)" } ?? "").",
                              entity: entity.name, key: key, objectID: object.objectID, sql: statement.sql, underlying: error)
        }
    }

    /// The key named by a "UNIQUE constraint failed: Entity.key" message.
    func uniqueKey(in error: DatabaseError, entity: EntityDescription) -> String? {
        guard let message = error.message, let range = message.range(of: "\(entity.name).") else { return nil }
        return String(message[range.upperBound...].prefix { $0 != "," && $0 != " " })
    }

    private func updateRow(_ object: ManagedObject, _ db: Database, _ outcome: inout SaveOutcome, _ conflicts: inout [SaveConflict], _ statements: Statements) throws {
        let columns = changedColumns(of: object)
        if try writeUpdate(object, columns: columns, expecting: object.rowVersion, db, outcome, statements) { return }
        if policy == .error {
            conflicts += try describeConflict(object, db)
        } else {
            try resolveUpdateConflict(object, changedColumns: columns, db, &outcome, statements)
        }
    }

    /// The table columns (positions in `entity.columns`) this object changed.
    /// Only net changes: a key changed and changed back is neither written nor reported (the
    /// change set reports the same net changes), so no stale value is written over another
    /// writer's.
    func changedColumns(of object: ManagedObject) -> [Int] {
        let entity = object.entity
        var columns: [Int] = []
        for (c, column) in entity.columns.enumerated() {
            switch column {
            case .attribute(let i) where object.changedProperties.contains(i):
                if let committed = object.committedAttributes, committed[i] == object.attributeValues[i] { continue }
                columns.append(c)
            case .foreignKey(let i) where object.changedProperties.contains(entity.attributes.count + i):
                if let committed = object.committedRelations[i], committed.propertyValue == object.relationValues[i].propertyValue { continue }
                columns.append(c)
            default: continue
            }
        }
        return columns
    }

    /// `UPDATE … SET <columns>, _version = _version + 1 WHERE _id = ? AND _version = ?`;
    /// returns whether the row was there at that version.
    func writeUpdate(_ object: ManagedObject, columns: [Int], expecting version: Int64, _ db: Database, _ outcome: SaveOutcome, _ statements: Statements) throws -> Bool {
        let entity = object.entity
        let shape = UpdateShape(entity: entity.index, columns: columns)
        let statement: Statement
        if let cached = statements.updates[shape] {
            statement = cached
        } else {
            let assignments = columns.map { "\(quoted(StoreSchema.columnName(entity.columns[$0], in: entity))) = ?" } + ["_version = _version + 1"]
            statement = try db.cachedStatement(sql: "UPDATE \(quoted(entity.name)) SET \(assignments.joined(separator: ", ")) WHERE _id = ? AND _version = ?")
            statements.updates[shape] = statement
        }
        let handle = statement.sqliteStatement
        var position: Int32 = 1
        for c in columns {
            switch entity.columns[c] {
            case .attribute(let i): RawStatement.bind(object.attributeValues[i], to: handle, at: position)
            case .foreignKey(let i): bindForeignKey(object, i, outcome, handle, position)
            case .order: break
            }
            position += 1
        }
        sqlite3_bind_int64(handle, position, key(of: object, outcome) ?? object.objectID.key)
        sqlite3_bind_int64(handle, position + 1, version)
        do {
            try RawStatement.execute(statement, db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.resultCode == .SQLITE_CONSTRAINT {
            let key = uniqueKey(in: error, entity: entity)
            throw StrataError(.conflict, "Updating \(entity.name) collides with a stored unique value\(key.map { " of \($0)" } ?? "").",
                              entity: entity.name, key: key, objectID: object.objectID, sql: statement.sql, underlying: error)
        }
        return db.changesCount == 1
    }

    private func deleteRow(_ object: ManagedObject, _ db: Database, _ outcome: inout SaveOutcome, _ conflicts: inout [SaveConflict]) throws {
        let entity = object.entity
        guard !object.objectID.isTemporary else { return }  // never a row: nothing to delete
        try db.cachedStatement(sql: "DELETE FROM \(quoted(entity.name)) WHERE _id = ? AND _version = ?")
            .execute(arguments: [object.objectID.key, object.rowVersion])
        if db.changesCount != 1, let stored = try readRow(of: object, db) {
            switch policy {
            case .error:
                conflicts += try describeConflict(object, db)
                return
            case .rollback:
                outcome.undeleted.insert(ObjectIdentifier(object))
                outcome.refreshed[ObjectIdentifier(object)] = stored
                return
            case .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite:
                try db.cachedStatement(sql: "DELETE FROM \(quoted(entity.name)) WHERE _id = ?").execute(arguments: [object.objectID.key])
            }
        }
        for relationship in entity.relationships {
            switch relationship.storage {
            case .joinTable(let join):
                try db.cachedStatement(sql: "DELETE FROM \(quoted(join.name)) WHERE \(quoted(join.ownColumn)) = ?").execute(arguments: [object.objectID.key])
            case .inverseForeignKey, .foreignKey:
                continue
            }
        }
    }

    /// Rows that still name a deleted row in a foreign key (another context related them, or
    /// this one held a stale view) lose the reference, like `ON DELETE SET NULL`, and get a new
    /// version so that holders of the old row see the change at their next save.
    private func nullifyReferences(to object: ManagedObject, through relationship: RelationshipDescription, column: String,
                                   _ db: Database, _ outcome: inout SaveOutcome) throws {
        let destination = model.entities[relationship.destinationIndex]
        let find = try db.cachedStatement(sql: "SELECT _id FROM \(quoted(destination.name)) WHERE \(quoted(column)) = ?")
        find.setUncheckedArguments([object.objectID.key])
        var keys: [Int64] = []
        try RawStatement.forEachRow(find, db) { keys.append(sqlite3_column_int64($0, 0)) }
        guard !keys.isEmpty else { return }
        let update = try db.cachedStatement(sql: "UPDATE \(quoted(destination.name)) SET \(quoted(column)) = NULL, _version = _version + 1 WHERE _id = ? RETURNING _version")
        for key in keys {
            update.setUncheckedArguments([key])
            var version: Int64 = 0
            try RawStatement.forEachRow(update, db) { version = sqlite3_column_int64($0, 0) }
            outcome.nullified.append((ObjectID(entity: destination, key: key), column, version))
        }
    }

    /// The object's row as it stands in the store, or nil if it is gone.
    func readRow(of object: ManagedObject, _ db: Database, key: Int64? = nil) throws -> RowSnapshot? {
        let entity = object.entity
        let reader = RowReader(entity: entity, model: model)
        let statement = try db.cachedStatement(sql: "SELECT \(reader.selectList(alias: "t0")) FROM \(quoted(entity.name)) t0 WHERE _id = ?")
        statement.setUncheckedArguments([key ?? object.objectID.key])
        var row: RowSnapshot?
        try RawStatement.forEachRow(statement, db) { row = reader.read($0) }
        return row
    }

    /// The conflicting keys of an object whose row changed (or vanished) since it was read.
    private func describeConflict(_ object: ManagedObject, _ db: Database) throws -> [SaveConflict] {
        let entity = object.entity
        guard let stored = try readRow(of: object, db) else {
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

    func writeRelationshipTables(_ object: ManagedObject, _ db: Database, _ outcome: SaveOutcome) throws {
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
            return try write { db in try work.run(db) }
        } catch {
            throw Self.storeError(error)
        }
    }
}

import GRDB
import GRDBSQLite
import OrderedCollections

/// Writes one root save's ``ChangeBatch`` in one transaction and says what it did by ID.
/// Run inside the coordinator's synchronous write, on the saving context's queue.
struct SaveTransaction {
    let model: ObjectModel
    let batch: ChangeBatch
    /// How conflicts are resolved.
    let policy: MergePolicy
    /// Whether the saving context holds an object with this ID (an insert cannot become it).
    let isRegistered: (ObjectID) -> Bool
    /// The deleted IDs, for ordered to-manys that must not number deleted members.
    let deletedIDs: Set<ObjectID>
    /// Who saved, when the store records history; `nil` when it does not.
    let history: SaveOrigin?

    /// The coordinator's statements, built once.
    let sql: SaveSQL
    /// The coordinator's key counters.
    let keys: StoreKeys

    init(model: ObjectModel, sql: SaveSQL, keys: StoreKeys, batch: ChangeBatch, policy: MergePolicy, history: SaveOrigin?, isRegistered: @escaping (ObjectID) -> Bool) {
        self.model = model
        self.sql = sql
        self.keys = keys
        self.batch = batch
        self.policy = policy
        self.history = history
        self.isRegistered = isRegistered
        self.deletedIDs = batch.deleted.isEmpty ? [] : Set(batch.deleted.map(\.id))
    }

    /// Prepared statements of this save, built once per entity (inserts) and per set of
    /// changed columns (updates) rather than per row.
    final class Statements {
        /// By entity index (an array: a row's lookup is an index, not a hash of the index).
        var inserts: [Statement?]
        var updates: [UpdateShape: Statement] = [:]
        /// The last update's shape and statement: consecutive rows of a save usually share
        /// one, and comparing is cheaper than hashing the column list per row.
        var lastUpdate: (shape: UpdateShape, statement: Statement)?
        /// The texts of the row being written (its statement is unbound after it ran).
        let texts = TextArena()
        /// The last attribute-only update's shape and columns: the rows of an edit of many
        /// objects write the same columns, and the same array makes the statement's shape
        /// compare as identical at once.
        private var lastColumns: (shape: ObjectChange.AttributeShape, columns: [Int])?

        init(entityCount: Int) {
            inserts = Array(repeating: nil, count: entityCount)
        }

        /// ``SaveTransaction/changedColumns(of:)``, the last one's again for a change of the same shape.
        func changedColumns(of change: ObjectChange, in transaction: SaveTransaction) -> [Int] {
            guard change.relations.isEmpty else { return transaction.changedColumns(of: change) }
            let shape = change.attributeShape
            if let last = lastColumns, last.shape == shape { return last.columns }
            let columns = transaction.changedColumns(of: change)
            lastColumns = (shape, columns)
            return columns
        }
    }

    struct UpdateShape: Hashable {
        var entity: Int
        var columns: [Int]
    }

    func run(_ db: Database) throws -> SaveOutcome {
        var outcome = SaveOutcome()
        try assignKeys(db, &outcome)
        var conflicts: [SaveConflict] = []
        let statements = Statements(entityCount: model.entities.count)
        // An insert that meets a stored unique value waits until the updates and deletes are
        // written: one of them may free the value (a row given another value, or deleted, in
        // this very save). Foreign keys are checked at commit, so the order is free.
        let mayFreeValues = !batch.updated.isEmpty || !batch.deleted.isEmpty
        var waiting: [(position: Int, change: ObjectChange)] = []
        for (position, change) in batch.inserted.enumerated() {
            if try !insertRow(change, at: position, db, &outcome, statements, waitsOnCollision: mayFreeValues) { waiting.append((position, change)) }
        }
        for change in batch.updated { try updateRow(change, db, &outcome, &conflicts, statements) }
        for deletion in batch.deleted { try deleteRow(deletion, db, &outcome, &conflicts) }
        for (position, change) in waiting { _ = try insertRow(change, at: position, db, &outcome, statements, waitsOnCollision: false) }
        if !outcome.reservedKeysOfAdopted.isEmpty { try repointForeignKeys(db, &outcome) }
        // After every delete, so rows deleted by this save (a cascade) are not touched first.
        for deletion in batch.deleted where !outcome.undeleted.contains(deletion.id) && !deletion.id.isTemporary {
            for relationship in deletion.id.entity.relationships {
                if case .inverseForeignKey(let column, _) = relationship.storage {
                    try nullifyReferences(to: deletion.id, through: relationship, column: column, db, &outcome)
                }
            }
        }
        if !conflicts.isEmpty {
            throw StrataError(.conflict, "The save conflicts with changes made in the store since the objects were read: \(conflicts.map(\.description).joined(separator: "; "))", conflicts: conflicts)
        }
        var later: [JoinPositions] = []
        for change in batch.inserted { try writeRelationshipTables(change, db, outcome, later: &later) }
        for change in batch.updated where !outcome.vanished.contains(change.id) { try writeRelationshipTables(change, db, outcome, later: &later) }
        for positions in later { try writePositions(positions, db, outcome) }
        if !sql.derivedReads.isEmpty { try readDerivedValues(db, &outcome) }
        if let history { try recordHistory(history, db, outcome) }
        return outcome
    }

    // MARK: Keys

    /// Gives every inserted object its primary key: one past the highest ever used.
    private func assignKeys(_ db: Database, _ outcome: inout SaveOutcome) throws {
        outcome.insertedKeys = Array(repeating: nil, count: batch.inserted.count)
        if batch.inserted.count >= SaveOutcome.insertsSizedAtOnce { outcome.assignedKeys.reserveCapacity(batch.inserted.count) }
        var byEntity = [[Int]](repeating: [], count: model.entities.count)   // entity index → positions in batch.inserted
        for (position, change) in batch.inserted.enumerated() where change.id.isTemporary {
            byEntity[change.id.entity.index].append(position)
        }
        for (entityIndex, positions) in byEntity.enumerated() where !positions.isEmpty {
            let first = try keys.reserve(positions.count, of: model.entities[entityIndex], sql: sql, db)
            for (offset, position) in positions.enumerated() { outcome.assign(first + Int64(offset), to: batch.inserted[position].id, at: position) }
            outcome.keyBlocks[entityIndex] = SavedInserts.KeyBlock(first: first, positions: positions)
        }
    }

    /// The row key of an object of this save or of the store: assigned now, or permanent.
    func key(of id: ObjectID, _ outcome: SaveOutcome) -> Int64? {
        if id.isTemporary { return outcome.assignedKeys[id] }
        return id.primaryKey
    }

    func bindForeignKey(_ change: ObjectChange, _ index: Int, _ outcome: SaveOutcome, _ handle: OpaquePointer, _ position: Int32) {
        if let target = change.toOneTarget(at: index) ?? nil, let key = key(of: target, outcome) {
            sqlite3_bind_int64(handle, position, key)
        } else {
            sqlite3_bind_null(handle, position)
        }
    }

    // MARK: Rows

    /// The insert of this save with a temporary ID that holds `row` (the row it wrote, or the
    /// stored row it became), by that ID; `nil` otherwise. Asked only on a unique collision.
    /// (An insert whose ID was made permanent before the save is held by the saving context
    /// under the row's own ID: `isRegistered` finds it, and it is named by that ID.)
    func insert(holding row: ObjectID, _ outcome: SaveOutcome) -> ObjectID? {
        if let block = outcome.keyBlocks[row.entity.index], block.keys.contains(row.key) {
            return batch.inserted[block.positions[Int(row.key - block.first)]].id   // given its key now
        }
        return outcome.adoptedRows.isEmpty ? nil : outcome.adoptedRows[row]
    }

    /// Writes an inserted object's row. On a stored unique value, returns false when
    /// `waitsOnCollision` (the caller tries again after the save's updates and deletes); else
    /// the merge policy adopts that row or the collision is a conflict.
    private func insertRow(_ change: ObjectChange, at insertIndex: Int, _ db: Database, _ outcome: inout SaveOutcome, _ statements: Statements,
                           waitsOnCollision: Bool) throws -> Bool {
        let entity = change.id.entity
        let statement: Statement
        if let cached = statements.inserts[entity.index] {
            statement = cached
        } else {
            statement = try db.cachedStatement(sql: sql.insert[entity.index])
            statements.inserts[entity.index] = statement
        }
        let handle = statement.sqliteStatement
        statements.texts.reset()
        defer { sqlite3_clear_bindings(handle) }   // (no pointer into the texts outlives the row)
        sqlite3_bind_int64(handle, 1, key(of: change.id, outcome) ?? 0)
        var position: Int32 = 2
        for column in entity.columns {
            switch column {
            case .attribute(let i): RawStatement.bind(change.values[i], to: handle, at: position, texts: statements.texts)
            case .foreignKey(let i): bindForeignKey(change, i, outcome, handle, position)
            case .order: continue
            }
            position += 1
        }
        do {
            try RawStatement.execute(statement, db)
            return true
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.extendedResultCode == .SQLITE_CONSTRAINT_PRIMARYKEY || error.resultCode == .SQLITE_CONSTRAINT {
            if waitsOnCollision, error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE { return false }
            let key = uniqueKey(in: error, entity: entity)
            if policy != .error, try adoptExistingRow(for: change, at: insertIndex, db, &outcome, statements) { return true }
            let conflicts = try uniqueCollisions(of: change, key: key, db, outcome)
            let inserted = Set(batch.inserted.map(\.id))   // the failing save's last step: a set of its inserts' IDs, temporary or made permanent before it
            let holder = conflicts.contains { $0.conflictingObjectID.map(inserted.contains) == true } ? "another object inserted by this save" : "a stored row"
            throw StrataError(.conflict, "Inserting \(entity.name) collides with the unique value\(key.map { " of \($0)" } ?? "") of \(holder).",
                              entity: entity.name, key: key, objectID: change.id, sql: statement.sql, underlying: error, conflicts: conflicts)
        }
    }

    /// The key named by a "UNIQUE constraint failed: Entity.key" message.
    func uniqueKey(in error: DatabaseError, entity: EntityDescription) -> String? {
        guard let message = error.message, let range = message.range(of: "\(entity.tableName).") else { return nil }
        return String(message[range.upperBound...].prefix { $0 != "," && $0 != " " })
    }

    private func updateRow(_ change: ObjectChange, _ db: Database, _ outcome: inout SaveOutcome, _ conflicts: inout [SaveConflict], _ statements: Statements) throws {
        let columns = statements.changedColumns(of: change, in: self)
        if try writeUpdate(change, columns: columns, expecting: change.version, db, outcome, statements) { return }
        if policy == .error {
            conflicts += try describeConflict(change, db)
        } else {
            try resolveUpdateConflict(change, changedColumns: columns, db, &outcome, statements)
        }
    }

    /// The table columns (positions in `entity.columns`) the change writes: its net changes.
    func changedColumns(of change: ObjectChange) -> [Int] {
        let entity = change.id.entity
        var columns: [Int] = []
        columns.reserveCapacity(entity.columns.count)   // one allocation, not one per growth
        for (c, column) in entity.columns.enumerated() {
            switch column {
            case .attribute(let i) where change.changesAttribute(at: i): columns.append(c)
            case .foreignKey(let i) where change.relation(at: i) != nil: columns.append(c)
            default: continue
            }
        }
        return columns
    }

    /// `UPDATE … SET <columns>, _version = _version + 1 WHERE _id = ? AND _version = ?`;
    /// returns whether the row was there at that version.
    func writeUpdate(_ change: ObjectChange, columns: [Int], expecting version: Int64, _ db: Database, _ outcome: SaveOutcome, _ statements: Statements) throws -> Bool {
        let entity = change.id.entity
        let shape = UpdateShape(entity: entity.index, columns: columns)
        let statement: Statement
        if let last = statements.lastUpdate, last.shape == shape {
            statement = last.statement
        } else if let cached = statements.updates[shape] {
            statement = cached
            statements.lastUpdate = (shape, cached)
        } else {
            let assignments = columns.map { "\(quoted(StoreSchema.columnName(entity.columns[$0], in: entity))) = ?" } + ["_version = _version + 1"]
            statement = try db.cachedStatement(sql: "UPDATE \(quoted(entity.tableName)) SET \(assignments.joined(separator: ", ")) WHERE _id = ? AND _version = ?")
            statements.updates[shape] = statement
            statements.lastUpdate = (shape, statement)
        }
        let handle = statement.sqliteStatement
        statements.texts.reset()
        defer { sqlite3_clear_bindings(handle) }   // (no pointer into the texts outlives the row)
        var position: Int32 = 1
        for c in columns {
            switch entity.columns[c] {
            case .attribute(let i): RawStatement.bind(change.values[i], to: handle, at: position, texts: statements.texts)
            case .foreignKey(let i): bindForeignKey(change, i, outcome, handle, position)
            case .order: break
            }
            position += 1
        }
        sqlite3_bind_int64(handle, position, key(of: change.id, outcome) ?? change.id.key)
        sqlite3_bind_int64(handle, position + 1, version)
        do {
            try RawStatement.execute(statement, db)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE || error.resultCode == .SQLITE_CONSTRAINT {
            let key = uniqueKey(in: error, entity: entity)
            throw StrataError(.conflict, "Updating \(entity.name) collides with a stored unique value\(key.map { " of \($0)" } ?? "").",
                              entity: entity.name, key: key, objectID: change.id, sql: statement.sql, underlying: error,
                              conflicts: try uniqueCollisions(of: change, key: key, db, outcome))
        }
        // SQLite's own count: GRDB's `changesCount` checks the queue first (about 500 instructions a row).
        return sqlite3_changes(db.sqliteConnection) == 1
    }

    private func deleteRow(_ deletion: ObjectDeletion, _ db: Database, _ outcome: inout SaveOutcome, _ conflicts: inout [SaveConflict]) throws {
        let id = deletion.id
        let entity = id.entity
        guard !id.isTemporary else { return }  // never a row: nothing to delete
        try db.cachedStatement(sql: "DELETE FROM \(quoted(entity.tableName)) WHERE _id = ? AND _version = ?")
            .execute(arguments: [id.key, deletion.version])
        if db.changesCount != 1, let stored = try readRow(of: id, db) {
            switch policy {
            case .error:
                conflicts += describeConflict(deleting: deletion, stored: stored)
                return
            case .rollback:
                outcome.undeleted.insert(id)
                outcome.refreshed[id] = stored
                return
            case .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite:
                try db.cachedStatement(sql: "DELETE FROM \(quoted(entity.tableName)) WHERE _id = ?").execute(arguments: [id.key])
            }
        }
        for relationship in entity.relationships {
            switch relationship.storage {
            case .joinTable(let join):
                try db.cachedStatement(sql: "DELETE FROM \(quoted(join.name)) WHERE \(quoted(join.ownColumn)) = ?").execute(arguments: [id.key])
            case .inverseForeignKey, .foreignKey:
                continue
            }
        }
    }

    /// Rows that still name a deleted row in a foreign key (another context related them, or
    /// this one held a stale view) lose the reference, like `ON DELETE SET NULL`, and get a new
    /// version so that holders of the old row see the change at their next save.
    private func nullifyReferences(to id: ObjectID, through relationship: RelationshipDescription, column: String,
                                   _ db: Database, _ outcome: inout SaveOutcome) throws {
        let destination = model.entities[relationship.destinationIndex]
        // In a hierarchy's table each row names its own entity: the ID must, too.
        let kind = destination.hierarchy.storesKind ? ", \(EntityHierarchy.kindColumn)" : ""
        let find = try db.cachedStatement(sql: "SELECT _id\(kind) FROM \(quoted(destination.tableName)) WHERE \(quoted(column)) = ?")
        find.setUncheckedArguments([id.key])
        var rows: [(Int64, EntityDescription)] = []
        try RawStatement.forEachRow(find, db) { handle in
            let own = kind.isEmpty ? destination : destination.kind(named: RawStatement.text(handle, 1), in: model)
            rows.append((sqlite3_column_int64(handle, 0), own))
        }
        guard !rows.isEmpty else { return }
        let update = try db.cachedStatement(sql: "UPDATE \(quoted(destination.tableName)) SET \(quoted(column)) = NULL, _version = _version + 1 WHERE _id = ? RETURNING _version")
        for (key, own) in rows {
            update.setUncheckedArguments([key])
            var version: Int64 = 0
            try RawStatement.forEachRow(update, db) { version = sqlite3_column_int64($0, 0) }
            outcome.nullified.append((ObjectID(entity: own, key: key), column, version))
        }
    }

    /// The row of `id` as it stands in the store (at `key` when given), or nil if it is gone.
    func readRow(of id: ObjectID, _ db: Database, key: Int64? = nil) throws -> RowSnapshot? {
        let entity = id.entity
        let reader = RowReader(entity: entity, model: model)
        let statement = try db.cachedStatement(sql: "SELECT \(reader.selectList(alias: "t0")) FROM \(quoted(entity.tableName)) t0 WHERE _id = ?")
        statement.setUncheckedArguments([key ?? id.key])
        var row: RowSnapshot?
        try RawStatement.forEachRow(statement, db) { row = reader.read($0) }
        return row
    }

    /// The conflicting keys of an update whose row changed (or vanished) since it was read.
    private func describeConflict(_ change: ObjectChange, _ db: Database) throws -> [SaveConflict] {
        let entity = change.id.entity
        guard let stored = try readRow(of: change.id, db) else {
            return [SaveConflict(objectID: change.id, key: nil, originalValue: .null, ourValue: .null, storedValue: .null)]
        }
        let original = change.originalValues ?? change.values
        var result: [SaveConflict] = []
        for (i, attribute) in entity.attributes.enumerated() where change.changesAttribute(at: i) || original[i] != stored.attributes[i] {
            result.append(SaveConflict(objectID: change.id, key: attribute.name, originalValue: original[i], ourValue: change.values[i], storedValue: stored.attributes[i]))
        }
        if result.isEmpty {
            result.append(SaveConflict(objectID: change.id, key: nil, originalValue: .integer(change.version), ourValue: .integer(change.version), storedValue: .integer(stored.version)))
        }
        return result
    }

    /// The conflicting keys of a delete whose row changed since it was read.
    private func describeConflict(deleting deletion: ObjectDeletion, stored: RowSnapshot) -> [SaveConflict] {
        var result: [SaveConflict] = []
        for (i, attribute) in deletion.id.entity.attributes.enumerated() where i < deletion.values.count && deletion.values[i] != stored.attributes[i] {
            result.append(SaveConflict(objectID: deletion.id, key: attribute.name, originalValue: deletion.values[i], ourValue: deletion.values[i], storedValue: stored.attributes[i]))
        }
        if result.isEmpty {
            result.append(SaveConflict(objectID: deletion.id, key: nil, originalValue: .integer(deletion.version), ourValue: .integer(deletion.version), storedValue: .integer(stored.version)))
        }
        return result
    }

    // MARK: Join tables and positions

    /// The positions of an ordered to-many on the side of a join table that does not write its
    /// rows: written after every change of the save, once the owning side's changes (later in
    /// the batch, perhaps) have written the rows.
    struct JoinPositions {
        var change: ObjectChange
        var join: JoinTable
        var orderColumn: String
        var members: [ObjectID]
    }

    func writeRelationshipTables(_ change: ObjectChange, _ db: Database, _ outcome: SaveOutcome, later: inout [JoinPositions]) throws {
        let entity = change.id.entity
        guard let ownKey = key(of: change.id, outcome) else { return }
        for relation in change.relations {
            guard case .toMany(let members, _) = relation.kind else { continue }
            let relationship = entity.relationships[relation.slot]
            switch relationship.storage {
            case .joinTable(let join):
                if join.isOwner {
                    for gone in relation.removed {
                        guard let other = key(of: gone, outcome) else { continue }
                        try db.cachedStatement(sql: "DELETE FROM \(quoted(join.name)) WHERE source = ? AND target = ?").execute(arguments: [ownKey, other])
                    }
                    for new in relation.added {
                        guard let other = key(of: new, outcome) else { continue }
                        try db.cachedStatement(sql: "INSERT OR IGNORE INTO \(quoted(join.name)) (source, target) VALUES (?, ?)").execute(arguments: [ownKey, other])
                    }
                }
                if let orderColumn = join.ownOrderColumn {
                    let positions = JoinPositions(change: change, join: join, orderColumn: orderColumn, members: members)
                    if join.isOwner { try writePositions(positions, db, outcome) } else { later.append(positions) }
                }
            case .inverseForeignKey(let column, let orderColumn?):
                let destination = model.entities[relationship.destinationIndex]
                // An insert that became a stored row adds its members after the row's own.
                let adopted = outcome.becameStoredRow(change.id)
                let first = adopted ? try positionAfterStoredMembers(table: destination.tableName, key: "_id", owner: column, order: orderColumn,
                                                                     ownKey: ownKey, members: members, db, outcome) : 0
                let sql = "UPDATE \(quoted(destination.tableName)) SET \(quoted(orderColumn)) = ? WHERE _id = ?"
                for (position, member) in members.enumerated() where !deletedIDs.contains(member) {
                    guard let other = key(of: member, outcome) else { continue }
                    if outcome.becameStoredRow(member) {
                        // A member that became a stored row is numbered only if its row names this
                        // owner: store-trump and rollback keep the row's stored owner, whose list
                        // keeps its positions (its gap here stays: the positions still increase).
                        try db.cachedStatement(sql: sql + " AND \(quoted(column)) = ?").execute(arguments: [first + Int64(position), other, ownKey])
                        continue
                    }
                    try db.cachedStatement(sql: sql).execute(arguments: [first + Int64(position), other])
                }
            default:
                continue
            }
        }
    }

    /// Numbers the members of an ordered many-to-many in its join table's rows.
    func writePositions(_ positions: JoinPositions, _ db: Database, _ outcome: SaveOutcome) throws {
        let join = positions.join
        guard let ownKey = key(of: positions.change.id, outcome) else { return }
        // An insert that became a stored row adds its members after the row's own.
        let adopted = outcome.becameStoredRow(positions.change.id)
        let first = adopted ? try positionAfterStoredMembers(table: join.name, key: join.otherColumn, owner: join.ownColumn, order: positions.orderColumn,
                                                             ownKey: ownKey, members: positions.members, db, outcome) : 0
        let sql = "UPDATE \(quoted(join.name)) SET \(quoted(positions.orderColumn)) = ? WHERE \(quoted(join.ownColumn)) = ? AND \(quoted(join.otherColumn)) = ?"
        for (position, member) in positions.members.enumerated() {
            guard let other = key(of: member, outcome) else { continue }
            try db.cachedStatement(sql: sql).execute(arguments: [first + Int64(position), ownKey, other])
        }
    }
}

extension StoreCoordinator {
    /// Writes `batch` in one transaction, resolving conflicts by `policy`; nothing is written
    /// if it throws. `isRegistered` says whether the saving context holds an object with an ID
    /// (an insert colliding with a unique value cannot become that row then).
    func save(_ batch: ChangeBatch, policy: MergePolicy, origin: SaveOrigin, isRegistered: @escaping (ObjectID) -> Bool) throws(StrataError) -> SaveOutcome {
        let work = SaveTransaction(model: model, sql: saveSQL, keys: keys, batch: batch, policy: policy, history: recordsHistory ? origin : nil, isRegistered: isRegistered)
        do {
            var (outcome, commit) = try numberedWrite(changedRows: { outcome in outcome.rowsWritten(by: batch) }) { db in try work.run(db) }
            outcome.commit = commit
            outcome.file = fileCommits
            return outcome
        } catch {
            throw Self.storeError(error)
        }
    }
}

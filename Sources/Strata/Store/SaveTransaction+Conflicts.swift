import GRDB
import GRDBSQLite

/// Conflict resolution by merge policy, inside the save's transaction (the write lock is
/// held, so a retry against the version just read cannot conflict again).
extension SaveTransaction {
    /// An update found the row changed (or gone) since the object read it.
    func resolveUpdateConflict(_ change: ObjectChange, changedColumns: [Int], _ db: Database, _ outcome: inout SaveOutcome, _ statements: Statements) throws {
        let id = change.id
        guard let stored = try readRow(of: id, db) else {
            outcome.vanished.insert(id)
            return
        }
        let entity = id.entity
        let columns: [Int]
        switch policy {
        case .error:
            return
        case .rollback:
            outcome.refreshed[id] = stored
            outcome.versions[id] = stored.version
            return
        case .mergeByPropertyObjectTrump:
            columns = changedColumns
        case .overwrite:
            columns = writableColumns(of: change)
        case .mergeByPropertyStoreTrump:
            columns = changedColumns.filter { !storeChanged(column: $0, of: change, stored: stored) }
        }
        guard try writeUpdate(change, columns: columns, expecting: stored.version, db, outcome, statements) else {
            throw StrataError(.storeFailure, "The row of \(id) changed during the save's own transaction.", entity: entity.name, objectID: id)
        }
        try takeRow(of: id, key: nil, db, &outcome)
    }

    /// Every column the change knows a value for: all attributes and the loaded to-ones (the
    /// whole object, as `.overwrite` and an adopted insert write it).
    private func writableColumns(of change: ObjectChange) -> [Int] {
        change.id.entity.columns.indices.filter { c in
            switch change.id.entity.columns[c] {
            case .attribute: true
            case .foreignKey(let r): change.toOneTarget(at: r) != nil
            case .order: false
            }
        }
    }

    /// Whether the store's value of `column` differs from what the object originally read.
    private func storeChanged(column: Int, of change: ObjectChange, stored: RowSnapshot) -> Bool {
        switch change.id.entity.columns[column] {
        case .attribute(let i):
            let original = change.originalValues?[i] ?? change.values[i]
            return original != stored.attributes[i]
        case .foreignKey(let r):
            guard let storedTarget = stored.toOneTarget(r) else { return false }
            let original: ObjectID? = if case .toOne(_, let before?)? = change.relation(at: r)?.kind { before } else { change.toOneTarget(at: r) ?? nil }
            return original != storedTarget
        case .order:
            return false
        }
    }

    /// The stored rows that already hold `change`'s value of the unique attribute `key` (every
    /// unique attribute it sets when the key is unknown), as conflicts naming them: a row an
    /// insert of this save holds by that insert's ID, since the save is rolled back. A unique
    /// collision of an update is never resolved by the merge policy: the other row is another
    /// object, not this one changed underneath.
    func uniqueCollisions(of change: ObjectChange, key: String?, _ db: Database, _ outcome: SaveOutcome) throws -> [SaveConflict] {
        let entity = change.id.entity
        var conflicts: [SaveConflict] = []
        for (i, attribute) in entity.attributes.enumerated() where attribute.isUnique && (key == nil || attribute.name == key) {
            let value = change.values[i]
            guard !value.isNull else { continue }
            // In a hierarchy's table, the holder may be an object of another entity of it.
            let kind = entity.hierarchy.storesKind ? EntityHierarchy.kindColumn : "NULL"
            let statement = try db.cachedStatement(sql: "SELECT _id, \(kind) FROM \(quoted(entity.tableName)) WHERE \(quoted(attribute.name)) = ?")
            RawStatement.bind(value, to: statement.sqliteStatement, at: 1)
            var holders: [ObjectID] = []
            try RawStatement.forEachRow(statement, db) { handle in
                let holder = RawStatement.text(handle, 1).flatMap { model.entity(named: $0) } ?? entity
                holders.append(ObjectID(entity: holder, key: sqlite3_column_int64(handle, 0)))
            }
            for holder in holders where change.id.isTemporary || holder.key != change.id.key {
                conflicts.append(SaveConflict(objectID: change.id, key: attribute.name, originalValue: change.originalValues?[i] ?? .null,
                                              ourValue: value, storedValue: value, conflictingObjectID: insert(holding: holder, outcome) ?? holder))
            }
        }
        return conflicts
    }

    /// An insert collided with a stored unique value: unless the colliding row is already an
    /// object of the saving context or of this save (another insert wrote it or became it), the
    /// inserted object becomes that row — updated with our values under object-trump and
    /// overwrite, taken as it is under store-trump and rollback.
    /// Returns false when it cannot (the caller reports the conflict).
    func adoptExistingRow(for change: ObjectChange, at position: Int, _ db: Database, _ outcome: inout SaveOutcome, _ statements: Statements) throws -> Bool {
        // An object whose ID was made permanent before the save (`obtainPermanentIDs(for:)`)
        // was promised its own row, and others may already name it by that ID: it cannot become
        // another row, so the collision is a conflict under every policy.
        guard change.id.isTemporary else { return false }
        let entity = change.id.entity
        for (i, attribute) in entity.attributes.enumerated() where attribute.isUnique && !change.values[i].isNull {
            // Only a row of the same entity can become the inserted object (a hierarchy's table
            // holds other entities' rows too: colliding with one is a conflict).
            let kind = entity.hierarchy.storesKind ? " AND \(EntityHierarchy.kindColumn) = '\(entity.name)'" : ""
            let statement = try db.cachedStatement(sql: "SELECT _id, _version FROM \(quoted(entity.tableName)) WHERE \(quoted(attribute.name)) = ?\(kind)")
            RawStatement.bind(change.values[i], to: statement.sqliteStatement, at: 1)
            var existing: (key: Int64, version: Int64)?
            try RawStatement.forEachRow(statement, db) { existing = (sqlite3_column_int64($0, 0), sqlite3_column_int64($0, 1)) }
            guard let existing else { continue }
            let row = ObjectID(entity: entity, key: existing.key)
            if isRegistered(row) || insert(holding: row, outcome) != nil { return false }
            if let reserved = outcome.assignedKeys[change.id] { outcome.reservedKeysOfAdopted[change.id] = reserved }
            outcome.adoptedRows[row] = change.id
            outcome.assign(existing.key, to: change.id, at: position)
            if policy == .mergeByPropertyObjectTrump || policy == .overwrite {
                guard try writeUpdate(change, columns: writableColumns(of: change), expecting: existing.version, db, outcome, statements) else { return false }
            }
            try takeRow(of: change.id, key: existing.key, db, &outcome)
            return true
        }
        return false
    }

    /// Foreign keys this save wrote before an insert became an existing row name the key that
    /// insert had been reserved: they are set to the row's key. Only a row this save wrote can
    /// hold a reserved key (it was never used before), and only a column that still holds it
    /// changes: a row taken as it stands (store-trump, rollback) keeps its own. Join tables,
    /// positions and history are written after every insert's key is settled.
    func repointForeignKeys(_ db: Database, _ outcome: inout SaveOutcome) throws {
        for change in batch.inserted { try repointForeignKeys(of: change, db, outcome) }
        for change in batch.updated where !outcome.vanished.contains(change.id) { try repointForeignKeys(of: change, db, outcome) }
        // A row taken after an earlier conflict may have been read with a reserved key (an
        // object-trump adoption whose to-one was adopted after it): read it again. A key that
        // only looks reserved (another entity's) costs a read, nothing else.
        let reserved = Set(outcome.reservedKeysOfAdopted.values)
        for (id, row) in outcome.refreshed where namesAnyKey(row, in: reserved) {
            if let again = try readRow(of: id, db, key: key(of: id, outcome)) { outcome.refreshed[id] = again }
        }
    }

    private func namesAnyKey(_ row: RowSnapshot, in keys: Set<Int64>) -> Bool {
        row.relationValues.indices.contains { index in
            if let target = row.toOneTarget(index) ?? nil { keys.contains(target.key) } else { false }
        }
    }

    private func repointForeignKeys(of change: ObjectChange, _ db: Database, _ outcome: SaveOutcome) throws {
        let entity = change.id.entity
        for column in entity.columns {
            guard case .foreignKey(let slot) = column, let target = change.toOneTarget(at: slot) ?? nil,
                  let reserved = outcome.reservedKeysOfAdopted[target], let adopted = outcome.assignedKeys[target],
                  let own = key(of: change.id, outcome) else { continue }
            let name = quoted(StoreSchema.columnName(column, in: entity))
            try db.cachedStatement(sql: "UPDATE \(quoted(entity.tableName)) SET \(name) = ? WHERE _id = ? AND \(name) = ?")
                .execute(arguments: [adopted, own, reserved])
        }
    }

    /// The first position an ordered to-many of an insert that became a stored row gives its
    /// members: one past the highest position of the row's stored members that the insert does
    /// not list (0 when there are none). The insert never read them: its members follow them,
    /// under every policy (a to-many is not a column of the row that a policy could overwrite).
    /// `table` holds one row per member: `owner` names the row, `key` the member, `order` its
    /// position.
    func positionAfterStoredMembers(table: String, key: String, owner: String, order: String, ownKey: Int64,
                                    members: [ObjectID], _ db: Database, _ outcome: SaveOutcome) throws -> Int64 {
        let listed = Set(members.compactMap { self.key(of: $0, outcome) })
        let statement = try db.cachedStatement(sql: "SELECT \(quoted(key)), \(quoted(order)) FROM \(quoted(table)) WHERE \(quoted(owner)) = ?")
        statement.setUncheckedArguments([ownKey])
        var first: Int64 = 0
        try RawStatement.forEachRow(statement, db) { handle in
            guard !listed.contains(sqlite3_column_int64(handle, 0)), sqlite3_column_type(handle, 1) != SQLITE_NULL else { return }
            first = max(first, sqlite3_column_int64(handle, 1) + 1)
        }
        return first
    }

    /// Records the row as it now stands, for the object to take after the commit.
    private func takeRow(of id: ObjectID, key: Int64?, _ db: Database, _ outcome: inout SaveOutcome) throws {
        guard let row = try readRow(of: id, db, key: key ?? self.key(of: id, outcome)) else { return }
        outcome.refreshed[id] = row
        outcome.versions[id] = row.version
    }
}

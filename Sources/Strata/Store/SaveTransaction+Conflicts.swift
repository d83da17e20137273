import GRDB
import GRDBSQLite

/// Conflict resolution by merge policy, inside the save's transaction (the write lock is
/// held, so a retry against the version just read cannot conflict again).
extension SaveTransaction {
    /// An update found the row changed (or gone) since the object read it.
    func resolveUpdateConflict(_ object: ManagedObject, changedColumns: [Int], _ db: Database, _ outcome: inout SaveOutcome, _ statements: Statements) throws {
        let id = ObjectIdentifier(object)
        guard let stored = try readRow(of: object, db) else {
            outcome.vanished.insert(id)
            return
        }
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
            columns = object.entity.columns.indices.filter { if case .order = object.entity.columns[$0] { return false } else { return true } }
        case .mergeByPropertyStoreTrump:
            columns = changedColumns.filter { !storeChanged(column: $0, of: object, stored: stored) }
        }
        guard try writeUpdate(object, columns: columns, expecting: stored.version, db, outcome, statements) else {
            throw StrataError(.storeFailure, "The row of \(object.objectID) changed during the save's own transaction.", entity: object.entity.name, objectID: object.objectID)
        }
        try takeRow(of: object, key: nil, db, &outcome)
    }

    /// Whether the store's value of `column` differs from what the object originally read.
    private func storeChanged(column: Int, of object: ManagedObject, stored: RowSnapshot) -> Bool {
        switch object.entity.columns[column] {
        case .attribute(let i):
            let original = object.committedAttributes?[i] ?? object.attributeValues[i]
            return original != stored.attributes[i]
        case .foreignKey(let r):
            let original = (object.committedRelations[r] ?? object.relationValues[r]).propertyValue
            guard case .toOne(let storedTarget) = stored.relations[r] else { return false }
            return original != (storedTarget.map(PropertyValue.objectID) ?? .null)
        case .order:
            return false
        }
    }

    /// An insert collided with a stored unique value: unless the colliding row is already an
    /// object of the saving context, the inserted object becomes that row — updated with our
    /// values under object-trump and overwrite, taken as it is under store-trump and rollback.
    /// Returns false when it cannot (the caller reports the conflict).
    func adoptExistingRow(for object: ManagedObject, _ db: Database, _ outcome: inout SaveOutcome, _ statements: Statements) throws -> Bool {
        let entity = object.entity
        for (i, attribute) in entity.attributes.enumerated() where attribute.isUnique && !object.attributeValues[i].isNull {
            let statement = try db.cachedStatement(sql: "SELECT _id, _version FROM \(quoted(entity.name)) WHERE \(quoted(attribute.name)) = ?")
            RawStatement.bind(object.attributeValues[i], to: statement.sqliteStatement, at: 1)
            var existing: (key: Int64, version: Int64)?
            try RawStatement.forEachRow(statement, db) { existing = (sqlite3_column_int64($0, 0), sqlite3_column_int64($0, 1)) }
            guard let existing else { continue }
            if isRegistered(ObjectID(entity: entity, key: existing.key)) { return false }
            outcome.assignedKeys[ObjectIdentifier(object)] = existing.key
            if policy == .mergeByPropertyObjectTrump || policy == .overwrite {
                let all = entity.columns.indices.filter { if case .order = entity.columns[$0] { return false } else { return true } }
                guard try writeUpdate(object, columns: all, expecting: existing.version, db, outcome, statements) else { return false }
            }
            try takeRow(of: object, key: existing.key, db, &outcome)
            return true
        }
        return false
    }

    /// Records the row as it now stands, for the object to take after the commit.
    private func takeRow(of object: ManagedObject, key: Int64?, _ db: Database, _ outcome: inout SaveOutcome) throws {
        let id = ObjectIdentifier(object)
        guard let row = try readRow(of: object, db, key: key ?? self.key(of: object, outcome)) else { return }
        outcome.refreshed[id] = row
        outcome.versions[id] = row.version
    }
}

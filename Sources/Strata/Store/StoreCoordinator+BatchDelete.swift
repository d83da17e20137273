import GRDB

extension StoreCoordinator {
    /// Deletes every row of the request's entity that matches its predicate, `chunkSize` rows
    /// per write transaction so that other writers get the lock between chunks, and returns
    /// what changed: `deleted` holds the IDs that went, `updated` the rows of other entities
    /// whose foreign key pointed at them and is now nil (with that key set to `.null`, and
    /// their new `versions`).
    ///
    /// Per chunk, the predicate is checked again under the write lock: rows changed so that
    /// they no longer match stay, rows already deleted by someone else are skipped. Join-table
    /// rows of the deleted objects are removed. Delete rules are not applied beyond nullifying
    /// foreign keys: no cascade, no deny. If a chunk fails, the chunks before it stay deleted.
    ///
    /// - Throws: `.invalidRequest` for an unknown entity or a chunk size below 1,
    ///   `.malformedPredicate` for a predicate naming unknown keys, `.storeFailure` from SQLite.
    ///
    /// For example:
    /// ```swift
    /// let changes = try coordinator.execute(BatchDeleteRequest(entityName: "Note", predicate: .key("rating") == 0))
    /// print(changes.deleted.count)
    /// ```
    public func execute(_ request: BatchDeleteRequest) throws(StrataError) -> ChangeSet {
        guard let entity = model.entity(named: request.entityName) else {
            throw StrataError(.invalidRequest, "The model has no entity named \(request.entityName).", entity: request.entityName)
        }
        guard request.chunkSize > 0 else {
            throw StrataError(.invalidRequest, "A batch delete of \(entity.name) needs a chunk size of at least 1, not \(request.chunkSize).", entity: entity.name)
        }
        let plan = BatchDeletePlan(entity: entity, model: model, predicate: try request.predicate?.compiled(for: entity, in: model))
        let keys = try read { db in try plan.matchingKeys(db) }
        var changes = ChangeSet()
        var start = 0
        while start < keys.count {
            let low = keys[start], high = keys[min(start + request.chunkSize, keys.count) - 1]
            let part: ChangeSet
            do {
                let (written, commit) = try numberedWrite { db in
                    let part = try plan.deleteChunk(from: low, to: high, db)
                    if recordsHistory { try HistoryWriter.record(part, kind: .batchDelete, db) }
                    return part
                }
                part = written
                changes.commits = (changes.commits?.lowerBound ?? commit)...commit
                fileCommits.lastBatchRequest.max(commit, ordering: .acquiringAndReleasing)
            } catch {
                throw Self.storeError(error)
            }
            changes.absorb(part)
            start += request.chunkSize
        }
        return changes
    }
}

/// The statements of a batch delete.
private struct BatchDeletePlan {
    let entity: EntityDescription
    let model: ObjectModel
    let predicate: CompiledPredicate?

    /// The primary keys of the matching rows, ascending.
    func matchingKeys(_ db: Database) throws -> [Int64] {
        var arguments: [DatabaseValue] = []
        let condition = entity.restricting(predicate.map { $0.sql(alias: "t0", arguments: &arguments) }, alias: "t0").map { " WHERE " + $0 } ?? ""
        return try Int64.fetchAll(db, sql: "SELECT t0._id FROM \(quoted(entity.tableName)) t0\(condition) ORDER BY t0._id", arguments: StatementArguments(arguments))
    }

    /// Deletes the matching rows with keys in `low...high` and what points at them; one
    /// DELETE statement on the entity's table.
    func deleteChunk(from low: Int64, to high: Int64, _ db: Database) throws -> ChangeSet {
        var arguments: [DatabaseValue] = [low.databaseValue, high.databaseValue]
        var condition = "t0._id BETWEEN ? AND ?"
        if let predicate { condition += " AND " + predicate.sql(alias: "t0", arguments: &arguments) }
        if let kind = entity.kindCondition(alias: "t0") { condition += " AND " + kind }
        let matching = "FROM \(quoted(entity.tableName)) t0 WHERE \(condition)"
        var ids: [ObjectID] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT t0._id, \(entity.kindExpression(alias: "t0")) \(matching)", arguments: StatementArguments(arguments))
        while let row = try rows.next() { ids.append(ObjectID(entity: entity.kind(named: row[1], in: model), key: row[0])) }
        let keys = ids.map(\.key)
        guard !keys.isEmpty else { return ChangeSet() }
        let sql = "DELETE FROM \(quoted(entity.tableName)) WHERE _id IN (SELECT t0._id \(matching))"
        try db.execute(sql: sql, arguments: StatementArguments(arguments))
        guard db.changesCount == keys.count else {
            throw StrataError(.storeFailure, "A batch delete chunk of \(entity.name) deleted \(db.changesCount) rows, expected \(keys.count).", entity: entity.name, sql: sql)
        }
        var changes = ChangeSet(deleted: Set(ids))
        var start = 0
        while start < keys.count {
            let list = Array(keys[start..<min(start + StoreCoordinator.keyChunk, keys.count)])
            try detach(list, db, &changes)
            start += StoreCoordinator.keyChunk
        }
        try DerivedRead.drain(model: model, into: &changes, db)
        return changes
    }

    /// Removes the join rows of the deleted `keys` and nullifies foreign keys pointing at them.
    private func detach(_ keys: [Int64], _ db: Database, _ changes: inout ChangeSet) throws {
        let list = StoreCoordinator.placeholders(keys.count)
        let arguments = StatementArguments(keys)
        // The rows may be of every entity below this one: detach each one's relationships.
        var seen = Set<String>()
        let relationships = entity.hierarchy.kindIndexes.flatMap { model.entities[$0].relationships }.filter { seen.insert($0.name).inserted }
        for relationship in relationships {
            switch relationship.storage {
            case .joinTable(let join):
                try db.cachedStatement(sql: "DELETE FROM \(quoted(join.name)) WHERE \(quoted(join.ownColumn)) IN \(list)").execute(arguments: arguments)
            case .inverseForeignKey(let column, let orderColumn):
                let destination = model.entities[relationship.destinationIndex]
                let inverseName = destination.relationships[relationship.inverseIndex].name
                let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT _id, _version, \(destination.kindExpression(alias: "")) FROM \(quoted(destination.tableName)) WHERE \(quoted(column)) IN \(list)"), arguments: arguments)
                while let row = try rows.next() {
                    guard let key = row[0] as Int64?, let version = row[1] as Int64? else { continue }
                    let id = ObjectID(entity: destination.kind(named: row[2], in: model), key: key)
                    changes.updated[id, default: [:]][inverseName] = .null
                    changes.versions[id] = version + 1
                }
                let clearOrder = orderColumn.map { ", \(quoted($0)) = NULL" } ?? ""
                let sql = "UPDATE \(quoted(destination.tableName)) SET \(quoted(column)) = NULL\(clearOrder), _version = _version + 1 WHERE \(quoted(column)) IN \(list)"
                try db.cachedStatement(sql: sql).execute(arguments: arguments)
            case .foreignKey:
                continue
            }
        }
    }
}

private extension ChangeSet {
    /// Adds a later chunk's changes: an object deleted later is reported as deleted only.
    mutating func absorb(_ later: ChangeSet) {
        for id in later.deleted {
            updated[id] = nil
            versions[id] = nil
        }
        deleted.formUnion(later.deleted)
        for (id, values) in later.updated { updated[id, default: [:]].merge(values) { $1 } }
        versions.merge(later.versions) { $1 }
    }
}

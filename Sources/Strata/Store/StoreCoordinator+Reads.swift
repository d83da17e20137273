import Foundation
import GRDB

extension StoreCoordinator {
    /// SQLite limits bound parameters; IN lists are read in chunks of this many keys.
    static let keyChunk = 500

    /// An IN list's placeholders for `count` keys, `(?,?,…,?)`. Built by repetition: joining
    /// `repeatElement("?", …)` went through unspecialised generic code, about 2 900
    /// instructions a key, more than reading the row.
    static func placeholders(_ count: Int) -> String {
        "(" + String(repeating: "?,", count: max(0, count - 1)) + "?)"
    }

    /// The rows of `entity` with the given primary keys (any order; missing rows are absent):
    /// from the row cache when it holds them, read at most `staleness` seconds ago (negative:
    /// any age; 0: always from the store, as a fetch does), the rest from the store.
    func readRows(of entity: EntityDescription, keys: [Int64], staleness: TimeInterval) throws(StrataError) -> [RowSnapshot] {
        guard rowCache.isShared else { return try readRows(of: entity, keys: keys) }
        let (cached, missing) = rowCache.lookup(entity, keys: keys, staleness: staleness)
        guard !missing.isEmpty else { return cached }
        let token = rowCache.token()
        let rows = try readRows(of: entity, keys: missing)
        rowCache.store(rows, token: token)
        return cached.isEmpty ? rows : cached + rows
    }

    /// Reads the rows of `entity` with the given primary keys from the store (any order;
    /// missing rows are absent).
    private func readRows(of entity: EntityDescription, keys: [Int64]) throws(StrataError) -> [RowSnapshot] {
        let reader = RowReader(entity: entity, model: model)
        let select = "SELECT \(reader.selectList(alias: "t0")) FROM \(quoted(entity.tableName)) t0 WHERE t0._id IN "
        return try read { db in
            var result: [RowSnapshot] = []
            result.reserveCapacity(keys.count)
            var start = 0
            while start < keys.count {
                let chunk = keys[start..<min(start + Self.keyChunk, keys.count)]
                let sql = select + Self.placeholders(chunk.count)
                let statement = try db.cachedStatement(sql: sql)
                RawStatement.bindKeys(chunk, to: statement)
                try RawStatement.forEachRow(statement, db) { result.append(reader.read($0)) }
                start += Self.keyChunk
            }
            return result
        }
    }

    /// One (source, target) pair of a relationship; `targetEntity` names the target's own
    /// entity when the destination has subentities (nil: the destination).
    struct RelatedKey { var source: Int64; var target: Int64; var targetEntity: EntityDescription? = nil }

    /// Reads the destination keys of relationship `index` of `entity` for the given source keys,
    /// in relationship order for ordered ones.
    func readRelatedKeys(of entity: EntityDescription, relationship index: Int, keys: [Int64]) throws(StrataError) -> [RelatedKey] {
        let relationship = entity.relationships[index]
        let destination = model.entities[relationship.destinationIndex]
        // A destination with subentities: each target's own entity is read with it.
        let kinds = destination.hierarchy.kindIndexes.count > 1
        let kind = EntityHierarchy.kindColumn
        let select: String
        switch relationship.storage {
        case .foreignKey(let column):
            let target = kinds ? ", (SELECT k.\(kind) FROM \(quoted(destination.tableName)) k WHERE k._id = s.\(quoted(column)))" : ""
            select = "SELECT s._id, s.\(quoted(column))\(target) FROM \(quoted(entity.tableName)) s WHERE s.\(quoted(column)) IS NOT NULL AND s._id IN "
        case .inverseForeignKey(let column, let orderColumn):
            let order = orderColumn.map { "\(quoted($0)), " } ?? ""
            select = "SELECT \(quoted(column)), _id\(kinds ? ", \(kind)" : "") FROM \(quoted(destination.tableName)) WHERE \(quoted(column)) IN %@ ORDER BY \(order)_id"
        case .joinTable(let join):
            let order = join.ownOrderColumn.map { "j.\(quoted($0)), " } ?? ""
            let target = kinds ? ", (SELECT k.\(kind) FROM \(quoted(destination.tableName)) k WHERE k._id = j.\(quoted(join.otherColumn)))" : ""
            select = "SELECT j.\(quoted(join.ownColumn)), j.\(quoted(join.otherColumn))\(target) FROM \(quoted(join.name)) j WHERE j.\(quoted(join.ownColumn)) IN %@ ORDER BY \(order)j.\(quoted(join.otherColumn))"
        }
        let model = self.model
        return try read { db in
            var result: [RelatedKey] = []
            var start = 0
            while start < keys.count {
                let chunk = keys[start..<min(start + Self.keyChunk, keys.count)]
                let list = Self.placeholders(chunk.count)
                let sql = select.contains("%@") ? select.replacingOccurrences(of: "%@", with: list) : select + list
                let rows = try Row.fetchCursor(db.cachedStatement(sql: sql), arguments: StatementArguments(Array(chunk)))
                while let row = try rows.next() {
                    let targetEntity = kinds ? (row[2] as String?).flatMap { model.entity(named: $0) } : nil
                    result.append(RelatedKey(source: row[0], target: row[1], targetEntity: targetEntity))
                }
                start += Self.keyChunk
            }
            return result
        }
    }

    /// Runs a read, mapping SQLite failures to typed errors. The row cache learns whether the
    /// connection saw another process's commit.
    func read<T>(_ body: (Database) throws -> T) throws(StrataError) -> T {
        do {
            let commits = rowCache.commitsNow
            return try database.read { db in
                let result = try body(db)
                // Inside the read's transaction: the version of the snapshot the body read.
                rowCache.didRead(on: UInt(bitPattern: db.sqliteConnection), dataVersion: StoreKeys.dataVersion(db), commitsBefore: commits)
                return result
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// A typed error for a failure met while reading or writing the store.
    static func storeError(_ error: any Error, sql: String? = nil) -> StrataError {
        if let error = error as? StrataError { return error }
        if let db = error as? DatabaseError {
            if db.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
                return StrataError(.conflict, "The save relates objects to an object that was deleted in the store meanwhile; nothing was written. Merge or refetch, then save again.", sql: sql ?? db.sql, underlying: db)
            }
            if db.resultCode == .SQLITE_CORRUPT || db.resultCode == .SQLITE_NOTADB {
                return StrataError(.corruptStore, "The store is damaged: \(db.message ?? "")", sql: sql ?? db.sql, underlying: db)
            }
            if db.resultCode == .SQLITE_FULL {
                return StrataError(.storeFull, "The disk (or the store's size limit) is full; nothing was written. Free space, then save again.", sql: sql ?? db.sql, underlying: db)
            }
            if db.resultCode == .SQLITE_READONLY {
                return StrataError(.readOnlyStore, "The store cannot be written (its file or its folder is read-only); nothing was written.", sql: sql ?? db.sql, underlying: db)
            }
            if db.resultCode == .SQLITE_BUSY {
                return StrataError(.storeBusy, "Another connection or process kept the store locked for longer than the busy timeout; nothing was written. Save again.", sql: sql ?? db.sql, underlying: db)
            }
            return StrataError(.storeFailure, "SQLite: \(db.message ?? "\(db.resultCode)")", sql: sql ?? db.sql, underlying: db)
        }
        return StrataError(.storeFailure, "\(error)", underlying: error)
    }
}

extension StoreCoordinator {
    /// Reserves `count` primary keys of `entity` (never handed out again) and returns the first.
    func reserveKeys(for entity: EntityDescription, count: Int) throws(StrataError) -> Int64 {
        do {
            return try write(changedRows: { _ in [] }) { db in   // only the key counters
                try keys.reserve(count, of: entity, sql: saveSQL, db)
            }
        } catch {
            throw Self.storeError(error)
        }
    }
}

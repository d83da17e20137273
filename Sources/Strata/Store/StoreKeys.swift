import GRDB
import GRDBSQLite

/// Primary keys: every entity's keys come from one counter in `_strata_keys` (the highest
/// key ever handed out), so a deleted row's key is never given again.
///
/// The coordinator remembers each counter after its own commits, with the connection's data
/// version (`SQLITE_FCNTL_DATA_VERSION`, which moves with every commit to the file, from any
/// connection or process). While the version is the one its last commit left, nobody else
/// wrote, so the remembered counter is the stored one: a save of one object writes the new
/// counter with one prepared `UPDATE` and reads nothing. Otherwise the counter is read again.
/// The stored counters are exactly what they were (reserving keys reads and writes the same row).
///
/// For example (inside a write transaction of the coordinator):
/// ```swift
/// let first = try keys.reserve(3, of: entity, sql: saveSQL, db)   // keys first, first + 1, first + 2
/// ```
final class StoreKeys: Sendable {
    private struct State {
        /// The data version after this coordinator's last commit, when the counters are known.
        var version: UInt32?
        /// That commit's number among this process's commits to the file
        /// (``StoreFileCommits/sequence``).
        var commit: UInt64 = 0
        /// The stored counters known, by entity index.
        var counters: [Int: Int64] = [:]
        /// Counters written by the transaction under way (kept only if it commits).
        var staged: [Int: Int64] = [:]
    }

    private let state = Locked(State())

    /// Who may have written to the file since this coordinator's last commit, as `begin` finds.
    enum WritersSince {
        /// Nobody: the counters known still hold.
        case nobody
        /// Somebody, perhaps another coordinator of this process (or it cannot be told: before
        /// this coordinator's first commit, or after a rollback).
        case somebody
        /// Another process (or a connection outside Strata): the file changed while no
        /// coordinator of this process committed to it.
        case anotherProcess
    }

    /// Called after `BEGIN`, holding the write lock, with the number of this process's last
    /// commit to the file (``StoreFileCommits/sequence``): whether the counters known still
    /// hold, and who wrote if they do not.
    func begin(_ db: Database, lastCommitOfProcess: UInt64) -> WritersSince {
        let version = Self.dataVersion(db)
        return state.withLock { state in
            state.staged = [:]
            guard version == nil || state.version != version else { return .nobody }
            let known = state.version != nil && version != nil
            state.counters = [:]
            return known && state.commit == lastCommitOfProcess ? .anotherProcess : .somebody
        }
    }

    /// Called after `COMMIT` of the commit numbered `number`: the counters written are the
    /// stored ones at the new version.
    /// Every write of the coordinator passes here, so its own saves of updates or deletes
    /// keep the counters known.
    func didCommit(_ db: Database, number: UInt64) {
        let version = Self.dataVersion(db)
        state.withLock { state in
            state.counters.merge(state.staged) { _, new in new }
            state.staged = [:]
            state.version = version
            state.commit = number
        }
    }

    /// Called after a rollback: nothing written counts, and the counters are read again.
    func didRollBack() {
        state.withLock { state in
            state.staged = [:]
            state.version = nil
            state.counters = [:]
        }
    }

    /// Reserves `count` keys of `entity` and returns the first. A store that never recorded
    /// the entity's counter starts after the highest key in its table.
    ///
    /// The entities of an inheritance hierarchy share one table, so they share its root's counter.
    func reserve(_ count: Int, of entity: EntityDescription, sql: SaveSQL, _ db: Database) throws -> Int64 {
        let slot = entity.hierarchy.rootIndex, table = entity.tableName
        let known = state.withLock { $0.staged[slot] ?? $0.counters[slot] }
        let stored: Int64?
        if let known {
            stored = known
        } else {
            let read = try db.cachedStatement(sql: sql.readCounter)
            sqlite3_reset(read.sqliteStatement)
            RawStatement.bindText(table, read.sqliteStatement, 1)
            var value: Int64?
            try RawStatement.forEachRow(read, db) { value = sqlite3_column_int64($0, 0) }
            stored = value
        }
        let base: Int64
        let write: Statement
        if let stored {
            base = stored
            write = try db.cachedStatement(sql: sql.updateCounter)
        } else {
            base = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(_id), 0) FROM \(quoted(table))") ?? 0
            write = try db.cachedStatement(sql: sql.insertCounter)
        }
        let last = base + Int64(count)
        let handle = write.sqliteStatement
        sqlite3_reset(handle)
        sqlite3_bind_int64(handle, 1, last)
        RawStatement.bindText(table, handle, 2)
        try RawStatement.execute(write, db)
        state.withLock { $0.staged[slot] = last }
        return base + 1
    }

    /// The connection's data version: it changes with every commit to the main database
    /// file, by this connection or another.
    static func dataVersion(_ db: Database) -> UInt32? {
        var version: UInt32 = 0
        let code = sqlite3_file_control(db.sqliteConnection, "main", SQLITE_FCNTL_DATA_VERSION, &version)
        return code == SQLITE_OK ? version : nil
    }
}

/// The SQL a save runs for each entity, built once per coordinator (not per save): the
/// statements' text is also the key of GRDB's statement cache.
///
/// For example:
/// ```swift
/// let sql = SaveSQL(model: model)
/// let insert = try db.cachedStatement(sql: sql.insert[entity.index])
/// ```
struct SaveSQL: Sendable {
    /// `INSERT INTO <entity> (_id, _version, <columns but order columns>) VALUES (?, 1, ?…)`, by entity index
    /// (in a hierarchy's table, `_entity` follows `_version`).
    let insert: [String]
    /// Reads an entity's key counter.
    let readCounter = "SELECT max_key FROM \(StoreSchema.keysTable) WHERE entity = ?"
    /// Writes an existing counter (`max_key`, `entity`).
    let updateCounter = "UPDATE \(StoreSchema.keysTable) SET max_key = ? WHERE entity = ?"
    /// Writes a new counter (`max_key`, `entity`).
    let insertCounter = "INSERT INTO \(StoreSchema.keysTable) (max_key, entity) VALUES (?, ?)"
    /// For each entity with derived attributes: the read of the derived values of the rows the
    /// save changed (see ``DerivedColumns``). Empty for a model without derived attributes.
    let derivedReads: [DerivedRead]
    /// The statements that recompute pending aggregates (see ``DerivedColumns/flushStatements(_:)``).
    let derivedFlush: [String]

    init(model: ObjectModel) {
        insert = model.entities.map { entity in
            var names = ["_id", "_version"]
            for column in entity.columns {
                if case .order = column { continue }
                names.append(quoted(StoreSchema.columnName(column, in: entity)))
            }
            guard entity.hierarchy.storesKind else {
                return "INSERT INTO \(quoted(entity.name)) (\(names.joined(separator: ", "))) VALUES (?, 1\(String(repeating: ", ?", count: names.count - 2)))"
            }
            // A row of a hierarchy's table names its entity (a literal: the binding positions stay the same).
            names.insert(EntityHierarchy.kindColumn, at: 2)
            return "INSERT INTO \(quoted(entity.tableName)) (\(names.joined(separator: ", "))) VALUES (?, 1, '\(entity.name)'\(String(repeating: ", ?", count: names.count - 3)))"
        }
        derivedReads = model.entities.compactMap(DerivedRead.init)
        derivedFlush = DerivedColumns.flushStatements(model)
    }
}

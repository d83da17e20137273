import Foundation
import GRDBSQLite

/// A bare SQLite C API connection, opened as the engine opens its stores (WAL,
/// `synchronous = NORMAL`), for the raw baselines that read or commit row by row.
///
/// For example:
/// ```swift
/// let connection = try RawSQLiteConnection(url)
/// try connection.execute("BEGIN IMMEDIATE")
/// ```
final class RawSQLiteConnection {
    /// The connection handle.
    let handle: OpaquePointer

    /// Opens the file at `url` read-write.
    init(_ url: URL) throws {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK, let db else {
            sqlite3_close_v2(db)
            throw SandboxError("sqlite3_open_v2 \(url.path) failed")
        }
        handle = db
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit { sqlite3_close_v2(handle) }

    /// Runs `sql` (no arguments, no rows).
    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error(sql) }
    }

    /// Prepares `sql`; the caller finalizes the statement.
    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw error(sql)
        }
        return statement
    }

    /// The connection's last error, with the statement that caused it.
    func error(_ sql: String) -> SandboxError {
        SandboxError("\(sql): \(String(cString: sqlite3_errmsg(handle)))")
    }
}

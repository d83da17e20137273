import Foundation
import GRDBSQLite

/// The floor of a one-object save: one `Book` row inserted in a transaction of its own
/// (`BEGIN IMMEDIATE`, one prepared insert, `COMMIT`), repeated, with the SQLite C API.
///
/// For example:
/// ```swift
/// let seconds = try RawSQLiteCommit.insertOneByOne(rows, into: url)
/// ```
enum RawSQLiteCommit {
    /// Inserts each of `rows` in its own transaction into the store at `url`; returns the
    /// seconds of all the transactions (opening and closing the connection are not counted).
    static func insertOneByOne(_ rows: SourceData.BookRows.SubSequence, into url: URL) throws -> Double {
        let connection = try RawSQLiteConnection(url)
        let sql = "INSERT INTO \"\(SandboxModel.bookTable)\" (\"_version\", \"title\", \"published\", \"rating\", \"position\") VALUES (1, ?, ?, ?, ?)"
        let statement = try connection.prepare(sql)
        defer { sqlite3_finalize(statement) }
        let clock = ContinuousClock()
        let start = clock.now
        try measuredRawCommits(rows, statement, connection)
        return (clock.now - start).sandboxSeconds
    }

    /// The timed body: one `BEGIN IMMEDIATE` … `COMMIT` per row.
    @inline(never)
    static func measuredRawCommits(_ rows: SourceData.BookRows.SubSequence, _ statement: OpaquePointer, _ connection: RawSQLiteConnection) throws {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)   // SQLITE_TRANSIENT: SQLite copies the text
        for row in rows {
            try connection.execute("BEGIN IMMEDIATE")
            _ = row.title.withCString { sqlite3_bind_text(statement, 1, $0, -1, transient) }
            sqlite3_bind_double(statement, 2, row.published.timeIntervalSince1970)
            sqlite3_bind_int64(statement, 3, row.rating)
            sqlite3_bind_int64(statement, 4, row.position)
            guard sqlite3_step(statement) == SQLITE_DONE else { throw connection.error("insert one row") }
            sqlite3_reset(statement)
            try connection.execute("COMMIT")
        }
    }
}

public import Foundation
import GRDBSQLite
public import Strata

/// The floor every rate is compared to: the SQLite C API with nothing above it — one
/// connection (WAL, `synchronous = NORMAL`, as the engine opens its stores), one prepared
/// statement, one transaction, no objects — writing the books into the engine's own `Book`
/// table (created by opening the file with the engine first).
///
/// For example:
/// ```swift
/// let seconds = try RawSQLiteInsert.insert(data, into: url)
/// ```
public enum RawSQLiteInsert {
    /// How many times the reference is measured (the best counts: the floor is what SQLite can do).
    public static let repetitions = 3

    /// The best of `count` inserts of `data`, each into a fresh file with the engine's schema.
    public static func bestOf(_ count: Int, _ data: SourceData, scratch: ScratchDirectory, model: ObjectModel, first: URL? = nil) async throws -> Double {
        var best = Double.infinity
        for i in 0..<max(1, count) {
            let url = i == 0 ? (first ?? scratch.newFile("raw")) : scratch.newFile("raw")
            if i > 0 || first == nil { try await BaselineScenario.createSchema(at: url, model: model) }
            best = min(best, try insert(data, into: url))
        }
        return best
    }

    /// Inserts every book of `data` into the `Book` table of the store at `url`; returns the
    /// seconds of the transaction (opening the connection is not counted).
    public static func insert(_ data: SourceData, into url: URL) throws -> Double {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK else {
            throw SandboxError("sqlite3_open_v2 \(url.path) failed")
        }
        defer { sqlite3_close_v2(db) }
        func exec(_ sql: String) throws {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                throw SandboxError("\(sql): \(String(cString: sqlite3_errmsg(db)))")
            }
        }
        try exec("PRAGMA journal_mode = WAL")
        try exec("PRAGMA synchronous = NORMAL")
        let columns = SandboxModel.bookColumns.map { "\"\($0)\"" }.joined(separator: ", ")
        let sql = "INSERT INTO \"\(SandboxModel.bookTable)\" (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)"
        let clock = ContinuousClock()
        let start = clock.now
        try exec("BEGIN IMMEDIATE")
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, 0, &statement, nil) == SQLITE_OK else {
            throw SandboxError("prepare: \(String(cString: sqlite3_errmsg(db)))")
        }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)   // SQLITE_TRANSIENT: SQLite copies the text
        for (i, row) in data.books.enumerated() {
            sqlite3_bind_int64(statement, 1, Int64(i + 1))
            sqlite3_bind_int64(statement, 2, 1)
            _ = row.title.withCString { sqlite3_bind_text(statement, 3, $0, -1, transient) }
            sqlite3_bind_double(statement, 4, row.published.timeIntervalSince1970)
            sqlite3_bind_int64(statement, 5, row.rating)
            sqlite3_bind_int64(statement, 6, row.position)
            sqlite3_bind_int64(statement, 7, Int64(row.authorIndex + 1))
            guard sqlite3_step(statement) == SQLITE_DONE else { throw SandboxError("insert: \(String(cString: sqlite3_errmsg(db)))") }
            sqlite3_reset(statement)
        }
        try exec("COMMIT")
        return (clock.now - start).sandboxSeconds
    }
}

extension Duration {
    /// The duration in seconds.
    var sandboxSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

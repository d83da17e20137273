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
    /// seconds of the transaction (opening and closing the connection are not counted).
    public static func insert(_ data: SourceData, into url: URL) throws -> Double {
        let connection = try RawSQLiteConnection(url)
        let clock = ContinuousClock()
        let start = clock.now
        try measuredRawInsert(data, connection)
        return (clock.now - start).sandboxSeconds
    }

    /// The timed body: `BEGIN` to `COMMIT` (a separate function so callgrind can count it alone).
    @inline(never)
    static func measuredRawInsert(_ data: SourceData, _ connection: RawSQLiteConnection) throws {
        let columns = SandboxModel.bookColumns.map { "\"\($0)\"" }.joined(separator: ", ")
        let sql = "INSERT INTO \"\(SandboxModel.bookTable)\" (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)"
        try connection.execute("BEGIN IMMEDIATE")
        let statement = try connection.prepare(sql)
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
            guard sqlite3_step(statement) == SQLITE_DONE else { throw connection.error(sql) }
            sqlite3_reset(statement)
        }
        try connection.execute("COMMIT")
    }
}

extension Duration {
    /// The duration in seconds.
    var sandboxSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }
}

import Foundation
import GRDBSQLite

/// The floor of a materialised fetch: every `Book` row read with the SQLite C API (the
/// columns an object holds: `_id`, `_version` and every attribute and to-one), its title's
/// bytes touched once, nothing built.
///
/// For example:
/// ```swift
/// let (seconds, rows) = try RawSQLiteRead.readBooks(at: url)
/// ```
enum RawSQLiteRead {
    /// Reads every book of the store at `url`; returns the seconds of the read (opening and
    /// closing the connection are not counted) and the rows read.
    static func readBooks(at url: URL) throws -> (seconds: Double, rows: Int) {
        let connection = try RawSQLiteConnection(url)
        let clock = ContinuousClock()
        let start = clock.now
        let rows = try measuredRawRead(connection)
        return ((clock.now - start).sandboxSeconds, rows)
    }

    /// The timed body: prepare, step through every row, read every column.
    @inline(never)
    static func measuredRawRead(_ connection: RawSQLiteConnection) throws -> Int {
        let columns = SandboxModel.bookColumns.map { "\"\($0)\"" }.joined(separator: ", ")
        let sql = "SELECT \(columns) FROM \"\(SandboxModel.bookTable)\""
        let statement = try connection.prepare(sql)
        defer { sqlite3_finalize(statement) }
        var rows = 0, characters = 0, checksum: Int64 = 0
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { break }
            guard step == SQLITE_ROW else { throw connection.error(sql) }
            checksum &+= sqlite3_column_int64(statement, 0) &+ sqlite3_column_int64(statement, 1)
            characters &+= Int(sqlite3_column_bytes(statement, 2))
            checksum &+= Int64(sqlite3_column_double(statement, 3)) &+ sqlite3_column_int64(statement, 4)
            checksum &+= sqlite3_column_int64(statement, 5) &+ sqlite3_column_int64(statement, 6)
            rows += 1
        }
        guard rows == 0 || characters > 0 || checksum != 0 else { throw SandboxError("raw read saw empty rows") }
        return rows
    }
}

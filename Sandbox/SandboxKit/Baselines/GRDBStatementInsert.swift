public import Foundation
import GRDB

/// The same rows as ``RawSQLiteInsert`` through GRDB: a `DatabaseQueue`, one prepared
/// `Statement` executed per row with its arguments, one transaction.
///
/// For example:
/// ```swift
/// let seconds = try GRDBStatementInsert.insert(data, into: url)
/// ```
public enum GRDBStatementInsert {
    /// Inserts every book of `data` into the `Book` table at `url`; returns the seconds of the
    /// transaction (opening the queue is not counted).
    public static func insert(_ data: SourceData, into url: URL) throws -> Double {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = false   // as the raw baseline: SQLite's defaults (the engine checks them)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        let columns = SandboxModel.bookColumns.map { "\"\($0)\"" }.joined(separator: ", ")
        let sql = "INSERT INTO \"\(SandboxModel.bookTable)\" (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?)"
        let clock = ContinuousClock()
        let start = clock.now
        try queue.inTransaction(.immediate) { db in
            let statement = try db.makeStatement(sql: sql)
            for (i, row) in data.books.enumerated() {
                try statement.execute(arguments: [Int64(i + 1), Int64(1), row.title, row.published.timeIntervalSince1970,
                                                  row.rating, row.position, Int64(row.authorIndex + 1)])
            }
            return .commit
        }
        let seconds = (clock.now - start).sandboxSeconds
        try queue.close()
        return seconds
    }
}

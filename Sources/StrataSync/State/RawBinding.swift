import Foundation
import GRDB
import GRDBSQLite

/// Binds, runs and reads a prepared statement through SQLite's C API: the merge runs a few
/// statements per object, and GRDB's argument and row objects cost more than the statement
/// itself there.
struct RawBinding {
    let statement: Statement
    private var index: Int32 = 0

    init(_ statement: Statement) {
        self.statement = statement
        sqlite3_reset(statement.sqliteStatement)
    }

    mutating func bind(_ text: String) {
        index += 1
        var text = text
        let handle = statement.sqliteStatement, index = self.index
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                _ = sqlite3_bind_text(handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(chars.count), Self.transient)
            }
        }
    }

    mutating func bind(_ value: Int64) {
        index += 1
        sqlite3_bind_int64(statement.sqliteStatement, index, value)
    }

    mutating func bindNull() {
        index += 1
        sqlite3_bind_null(statement.sqliteStatement, index)
    }

    mutating func bind(_ bytes: [UInt8]) {
        index += 1
        let handle = statement.sqliteStatement, index = self.index
        bytes.withUnsafeBytes { raw in
            _ = sqlite3_bind_blob(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), Self.transient)
        }
    }

    /// Runs the statement; returns the rows it changed.
    func run(_ db: Database) throws -> Int {
        let code = sqlite3_step(statement.sqliteStatement)
        sqlite3_reset(statement.sqliteStatement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
        }
        return Int(sqlite3_changes(db.sqliteConnection))
    }

    /// Steps a query: `true` with a row to read (``int64(_:)``, ``text(_:)``, ``bytes(_:)``),
    /// `false` when there is none. Call ``reset()`` once done with the row.
    func step(_ db: Database) throws -> Bool {
        let code = sqlite3_step(statement.sqliteStatement)
        if code == SQLITE_ROW { return true }
        sqlite3_reset(statement.sqliteStatement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
        }
        return false
    }

    func reset() { sqlite3_reset(statement.sqliteStatement) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement.sqliteStatement, column) == SQLITE_NULL }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(statement.sqliteStatement, column) }

    func text(_ column: Int32) -> String {
        guard let chars = sqlite3_column_text(statement.sqliteStatement, column) else { return "" }
        return String(cString: chars)
    }

    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement.sqliteStatement, column))
        guard count > 0, let base = sqlite3_column_blob(statement.sqliteStatement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: base, count: count))
    }

    /// SQLite copies the bound bytes.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

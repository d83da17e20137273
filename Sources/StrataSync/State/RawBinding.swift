import Foundation
import GRDB
import GRDBSQLite

/// Binds and runs a prepared statement through SQLite's C API: the merge runs one statement
/// per record, and GRDB's argument objects cost more than the statement itself there.
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

    /// SQLite copies the bound bytes.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

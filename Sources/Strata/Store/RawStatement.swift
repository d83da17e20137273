import Foundation
import GRDB
import GRDBSQLite

/// Binding and reading through the raw SQLite statement handle that GRDB exposes, inside
/// GRDB's connections and transactions. This is the hot path of save, batch insert, fetch and
/// fault: no argument arrays, no `Row` boxes.
enum RawStatement {
    /// Binds `value` at 1-based `index`. Unsaved object IDs bind as NULL (callers resolve
    /// them first); to-many values are not columns.
    static func bind(_ value: PropertyValue, to handle: OpaquePointer, at index: Int32) {
        switch value {
        case .null, .objectIDs: sqlite3_bind_null(handle, index)
        case .integer(let v): sqlite3_bind_int64(handle, index, v)
        case .double(let v): bindDouble(v, handle, index)
        case .bool(let v): sqlite3_bind_int64(handle, index, v ? 1 : 0)
        case .date(let v): sqlite3_bind_double(handle, index, v.timeIntervalSince1970)
        case .string(let v): bindText(v, handle, index)
        case .uuid(let v): bindText(v.uuidString, handle, index)
        case .url(let v): bindText(v.absoluteString, handle, index)
        case .decimal(let v): bindText(v.description, handle, index)
        case .data(let v): bindBlob(v, handle, index)
        case .transformed(let v): bindBlob(v.data, handle, index)
        case .objectID(let id): if id.isTemporary { sqlite3_bind_null(handle, index) } else { sqlite3_bind_int64(handle, index, id.key) }
        }
    }

    /// ``bind(_:to:at:)``, with text read in place from `texts` (see ``TextArena``): the
    /// caller clears the statement's bindings after it ran.
    static func bind(_ value: PropertyValue, to handle: OpaquePointer, at index: Int32, texts: TextArena) {
        if case .string(let v) = value { texts.bind(v, to: handle, at: index) } else { bind(value, to: handle, at: index) }
    }

    /// Binds a double as a REAL, or as its 8 bytes when a REAL would lose it (NaN, `-0.0`).
    static func bindDouble(_ v: Double, _ handle: OpaquePointer, _ index: Int32) {
        if PropertyValue.needsBits(v) { bindBlob(PropertyValue.bits(of: v), handle, index) } else { sqlite3_bind_double(handle, index, v) }
    }

    static func bindText(_ text: String, _ handle: OpaquePointer, _ index: Int32) {
        var text = text
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                _ = sqlite3_bind_text(handle, index, chars.baseAddress ?? UnsafePointer(bitPattern: 1), Int32(chars.count), SQLITE_TRANSIENT_BINDING)
            }
        }
    }

    static func bindBlob(_ data: Data, _ handle: OpaquePointer, _ index: Int32) {
        data.withUnsafeBytes { bytes in
            _ = sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), SQLITE_TRANSIENT_BINDING)
        }
    }

    /// Binds `keys` to the parameters `1...keys.count` of `statement` (reset first), without
    /// building GRDB `StatementArguments` (a `DatabaseValue` per key).
    static func bindKeys(_ keys: ArraySlice<Int64>, to statement: Statement) {
        let handle = statement.sqliteStatement
        sqlite3_reset(handle)
        var index: Int32 = 1
        for key in keys {
            sqlite3_bind_int64(handle, index, key)
            index += 1
        }
    }

    /// Steps a statement whose arguments are bound, expecting no row.
    static func execute(_ statement: Statement, _ db: Database) throws {
        let handle = statement.sqliteStatement
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
        }
    }

    /// Steps through the rows of a statement whose arguments are bound.
    static func forEachRow(_ statement: Statement, _ db: Database, _ body: (OpaquePointer) throws -> Void) throws {
        let handle = statement.sqliteStatement
        defer { sqlite3_reset(handle) }
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
            }
            try body(handle)
        }
    }

    /// The value of column `index` (0-based) read as an attribute of `type`.
    static func value(_ handle: OpaquePointer, _ index: Int32, type: AttributeType) -> PropertyValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: PropertyValue(integer: sqlite3_column_int64(handle, index), type: type)
        case SQLITE_FLOAT: PropertyValue(double: sqlite3_column_double(handle, index), type: type)
        // Text that is not valid UTF-8 (another program wrote it) is read as its bytes, which
        // no text attribute accepts, instead of being silently repaired.
        case SQLITE_TEXT: text(handle, index).map { PropertyValue(text: $0, type: type) } ?? PropertyValue(blob: blob(handle, index), type: type)
        case SQLITE_BLOB: PropertyValue(blob: blob(handle, index), type: type)
        default: .null
        }
    }

    /// Column `index` as an optional integer.
    static func integer(_ handle: OpaquePointer, _ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }

    /// Column `index` as text, or nil if its bytes are not valid UTF-8.
    static func text(_ handle: OpaquePointer, _ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return "" }
        let buffer = UnsafeBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index)))
        // ASCII is valid UTF-8 as it is: decoding it cannot repair anything, and the decoder
        // specialised for a byte buffer costs a fraction of the generic `String(validating:)`;
        // other text is decoded the same way and checked against its bytes (`StrictUTF8`).
        if isASCII(buffer) { return String(decoding: buffer, as: UTF8.self) }
        return StrictUTF8.string(buffer)
    }

    /// Whether every byte is below 0x80 (eight bytes at a time).
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let count = bytes.count
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i &+ 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i &+= 8
        }
        while i < count {
            if base[i] & 0x80 != 0 { return false }
            i &+= 1
        }
        return true
    }

    static func blob(_ handle: OpaquePointer, _ index: Int32) -> Data {
        guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }
}

/// SQLite's SQLITE_TRANSIENT: it copies the bytes before the call returns.
let SQLITE_TRANSIENT_BINDING = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

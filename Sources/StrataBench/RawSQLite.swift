/// The baseline: the SQLite C API with no layer above it. One connection (WAL,
/// `synchronous = NORMAL`), one prepared statement, one transaction; a table and index of
/// exactly the shape the engine creates for `Note`.
import Foundation
import GRDBSQLite

/// A raw SQLite connection to one file.
final class RawDatabase {
    private var db: OpaquePointer?

    static let schema = [
        #"CREATE TABLE "Note" (_id INTEGER PRIMARY KEY, _version INTEGER NOT NULL DEFAULT 1, "title" TEXT, "created" REAL, "rating" INTEGER, "folder" INTEGER)"#,
        #"CREATE INDEX "_idx_Note_folder" ON "Note" ("folder")"#,
    ]

    init(path: String) {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &db, flags, nil) == SQLITE_OK else { fail("sqlite3_open_v2 \(path): \(message)") }
        execute("PRAGMA journal_mode = WAL")
        execute("PRAGMA synchronous = NORMAL")
    }

    deinit { sqlite3_close_v2(db) }

    private var message: String { db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? "no connection" }

    func execute(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fail("\(sql): \(message)") }
    }

    func createSchema() { Self.schema.forEach(execute) }

    private func prepare(_ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(db, sql, -1, 0, &statement, nil) == SQLITE_OK else { fail("prepare \(sql): \(message)") }
        return statement
    }

    /// Inserts every row in one transaction with one prepared statement. Not inlined, so that
    /// callgrind can count it on its own (`--toggle-collect='*RawDatabase*insert*'`).
    @inline(never)
    func insert(_ rows: [NoteRow]) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)   // SQLITE_TRANSIENT, as GRDB binds text
        execute("BEGIN IMMEDIATE")
        let statement = prepare(#"INSERT INTO "Note" (_id, _version, "title", "created", "rating", "folder") VALUES (?, ?, ?, ?, ?, ?)"#)
        for (i, row) in rows.enumerated() {
            sqlite3_bind_int64(statement, 1, Int64(i + 1))
            sqlite3_bind_int64(statement, 2, 1)
            _ = row.title.withCString { sqlite3_bind_text(statement, 3, $0, -1, transient) }
            sqlite3_bind_double(statement, 4, row.created.timeIntervalSince1970)
            sqlite3_bind_int64(statement, 5, row.rating)
            sqlite3_bind_int64(statement, 6, Int64(row.folderIndex + 1))
            guard sqlite3_step(statement) == SQLITE_DONE else { fail("insert: \(message)") }
            sqlite3_reset(statement)
        }
        sqlite3_finalize(statement)
        execute("COMMIT")
    }

    /// A note row read back into Swift values.
    struct ReadNote {
        let id: Int64
        let version: Int64
        let title: String
        let created: Date
        let rating: Int64
        let folder: Int64?
    }

    /// Reads every note, each column into a Swift value. Not inlined (see `insert`).
    @inline(never)
    func readAll() -> [ReadNote] {
        let statement = prepare(#"SELECT _id, _version, "title", "created", "rating", "folder" FROM "Note""#)
        var notes: [ReadNote] = []
        while true {
            let rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { fail("read: \(message)") }
            let title = sqlite3_column_text(statement, 2).map { String(cString: $0) } ?? ""
            notes.append(ReadNote(
                id: sqlite3_column_int64(statement, 0), version: sqlite3_column_int64(statement, 1), title: title,
                created: Date(timeIntervalSince1970: sqlite3_column_double(statement, 3)),
                rating: sqlite3_column_int64(statement, 4),
                folder: sqlite3_column_type(statement, 5) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 5)))
        }
        sqlite3_finalize(statement)
        return notes
    }
}

/// Raw insert: a fresh file per run; opening and creating the table are not timed.
func rawInsert(_ data: BenchData, in directory: ScratchDirectory, runs: Int) -> [Duration] {
    repeated(runs) {
        let database = RawDatabase(path: directory.newFile("raw-insert").path)
        database.createSchema()
        return timed { database.insert(data.notes) }
    }
}

/// Raw read: one file filled once (untimed), then every row read per run on the same connection.
func rawRead(_ data: BenchData, in directory: ScratchDirectory, runs: Int) -> [Duration] {
    let database = RawDatabase(path: directory.newFile("raw-read").path)
    database.createSchema()
    database.insert(data.notes)
    return repeated(runs) {
        var count = 0
        let time = timed { count = database.readAll().count }
        if count != data.notes.count { fail("raw read found \(count) rows, expected \(data.notes.count)") }
        return time
    }
}

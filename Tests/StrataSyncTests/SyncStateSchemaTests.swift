import Foundation
import GRDB
import Testing
@testable import StrataSync

/// The state file's schema: a schema 1 file (one `cells` row per property) is migrated in
/// place (cells packed per object), keeping every cell and stamp; a schema 2 file's rows
/// reserved for a save in flight (`pending`) become schema 3 reservations; a schema 3 file's
/// rows and dirty flags move to schema 4's `locals` and `dirty`; a schema 4 file's cells are
/// packed again with each stamp once (schema 5); damaged packed cells are a typed error, not
/// a crash.
@Suite struct SyncStateSchemaTests {
    static let book = GlobalObjectKey(entity: "Book", gid: "b1")

    static func stamped(_ lamport: Int64, _ property: String, _ value: [UInt8]) -> StampedRecord {
        StampedRecord(stamp: Stamp(lamport: lamport, milliseconds: 10, peer: "PEER"), record: .cell(book, property: property, value: value))
    }

    /// Writes a state file of schema `version` at `url`: `statements`, then the version.
    static func writeState(at url: URL, version: Int, _ statements: [String]) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            for statement in statements { try db.execute(sql: statement) }
            try db.execute(sql: "PRAGMA user_version = \(version)")
        }
        try queue.close()
    }

    /// Opens a state that `write` wrote in a new folder and runs `body` on it, then closes it.
    static func withOpened(_ write: (URL) throws -> Void, _ body: (SyncState) throws -> Void) throws {
        let folder = TemporaryFolder()
        let url = folder.url.appending(path: "state.sqlite")
        try write(url)
        let state = try SyncState(url: url)
        defer { try? state.close() }
        try withExtendedLifetime(folder) { try body(state) }
    }

    /// Writes a schema 1 state at `url` holding Book b1 (inserted at count 3) with two cells.
    static func writeVersion1(at url: URL) throws {
        try writeState(at: url, version: 1, [
            "CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID",
            """
            CREATE TABLE objects (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER, pending INTEGER NOT NULL DEFAULT 0,
                ins_l INTEGER, ins_t INTEGER, ins_p TEXT, del_l INTEGER, del_t INTEGER, del_p TEXT, dirty INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY (entity, gid)) WITHOUT ROWID
            """,
            "CREATE INDEX objects_dirty ON objects (dirty) WHERE dirty = 1",
            """
            CREATE TABLE cells (entity TEXT NOT NULL, gid TEXT NOT NULL, property TEXT NOT NULL,
                l INTEGER NOT NULL, t INTEGER NOT NULL, p TEXT NOT NULL, value BLOB NOT NULL,
                PRIMARY KEY (entity, gid, property)) WITHOUT ROWID
            """,
            "INSERT INTO objects (entity, gid, local_key, ins_l, ins_t, ins_p) VALUES ('Book', 'b1', 7, 3, 10, 'PEER')",
            "INSERT INTO cells VALUES ('Book', 'b1', 'title', 3, 10, 'PEER', x'01020304')",
            "INSERT INTO cells VALUES ('Book', 'b1', 'rating', 5, 10, 'PEER', x'05')",
        ])
    }

    @Test func aVersion1StateIsMigratedKeepingEveryCell() throws {
        try Self.withOpened(Self.writeVersion1) { state in
            #expect(try state.read { tx in try tx.cells(of: Self.book) } == ["title": [1, 2, 3, 4], "rating": [5]])
            #expect(try state.read { tx in try tx.object(Self.book)?.localKey } == 7)
            #expect(try state.read { tx in try Int.fetchOne(tx.db, sql: "PRAGMA user_version") } == SyncStateSchema.version)
            #expect(try state.read { tx in try Bool.fetchOne(tx.db, sql: "SELECT 1 FROM sqlite_master WHERE name = 'cells'") } == nil)
            // The migrated stamps still decide: a later title wins, an older rating does not.
            _ = try state.write { tx in try tx.merge([Self.stamped(4, "title", [9]), Self.stamped(4, "rating", [7])], dirty: true) }
            #expect(try state.read { tx in try tx.cells(of: Self.book) } == ["title": [9], "rating": [5]])
            let records = try state.read { tx in try tx.allRecords() }
            #expect(records.count == 3, "the insert and two cells")
        }
    }

    /// Writes a schema 2 state at `url`: Book b1 at row 7, and Book b2 reserved at row 8 by a
    /// save that a crash may have cut short (`pending`, still dirty).
    static func writeVersion2(at url: URL) throws {
        try writeState(at: url, version: 2, [
            """
            CREATE TABLE objects (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER, pending INTEGER NOT NULL DEFAULT 0,
                ins_l INTEGER, ins_t INTEGER, ins_p TEXT, del_l INTEGER, del_t INTEGER, del_p TEXT, dirty INTEGER NOT NULL DEFAULT 0,
                cells BLOB, PRIMARY KEY (entity, gid)) WITHOUT ROWID
            """,
            "CREATE UNIQUE INDEX objects_by_local ON objects (entity, local_key) WHERE local_key IS NOT NULL",
            "CREATE INDEX objects_dirty_keys ON objects (entity, gid) WHERE dirty = 1",
            "CREATE INDEX objects_pending ON objects (pending) WHERE pending = 1",
            "INSERT INTO objects (entity, gid, local_key, ins_l, ins_t, ins_p) VALUES ('Book', 'b1', 7, 3, 10, 'PEER')",
            "INSERT INTO objects (entity, gid, local_key, pending, dirty, ins_l, ins_t, ins_p) VALUES ('Book', 'b2', 8, 1, 1, 4, 10, 'PEER')",
        ])
    }

    @Test func aVersion2StatesPendingRowsBecomeReservations() throws {
        try Self.withOpened(Self.writeVersion2) { state in
            let b2 = GlobalObjectKey(entity: "Book", gid: "b2")
            let reservations = try state.read { tx in try tx.reservations() }
            #expect(reservations.map(\.0) == [b2])
            #expect(reservations.map(\.1) == [8])
            #expect(try state.read { tx in try tx.object(b2)?.localKey } == nil, "held only as a reservation until the save is confirmed")
            #expect(try state.read { tx in try tx.object(Self.book)?.localKey } == 7)
            #expect(try state.write { tx in try tx.dirtyObjectsWithValues(after: nil, limit: 10).map(\.0) } == [b2])
            let columns = try state.read { tx in try Row.fetchAll(tx.db, sql: "PRAGMA table_info(objects)").map { $0["name"] as String } }
            #expect(!columns.contains("pending"))
            #expect(try state.read { tx in try Int.fetchOne(tx.db, sql: "PRAGMA user_version") } == SyncStateSchema.version)
        }
    }

    /// Writes a schema 3 state at `url`: Book b1 at row 7 (clean), b2 at row 8 and b3 without
    /// a row (both dirty), and b4 reserved at row 9.
    static func writeVersion3(at url: URL) throws {
        try writeState(at: url, version: 3, [
            """
            CREATE TABLE objects (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER,
                ins_l INTEGER, ins_t INTEGER, ins_p TEXT, del_l INTEGER, del_t INTEGER, del_p TEXT, dirty INTEGER NOT NULL DEFAULT 0,
                cells BLOB, PRIMARY KEY (entity, gid)) WITHOUT ROWID
            """,
            "CREATE UNIQUE INDEX objects_by_local ON objects (entity, local_key) WHERE local_key IS NOT NULL",
            "CREATE INDEX objects_dirty_keys ON objects (entity, gid) WHERE dirty = 1",
            SyncStateSchema.reservedTable,
            "INSERT INTO objects (entity, gid, local_key, dirty, ins_l, ins_t, ins_p) VALUES ('Book', 'b1', 7, 0, 3, 10, 'PEER')",
            "INSERT INTO objects (entity, gid, local_key, dirty, ins_l, ins_t, ins_p) VALUES ('Book', 'b2', 8, 1, 3, 10, 'PEER')",
            "INSERT INTO objects (entity, gid, local_key, dirty, ins_l, ins_t, ins_p) VALUES ('Book', 'b3', NULL, 1, 3, 10, 'PEER')",
            "INSERT INTO objects (entity, gid, dirty, ins_l, ins_t, ins_p) VALUES ('Book', 'b4', 1, 3, 10, 'PEER')",
            "INSERT INTO reserved VALUES ('Book', 'b4', 9)",
        ])
    }

    @Test func aVersion3StatesRowsAndDirtyFlagsMoveToTheirTables() throws {
        try Self.withOpened(Self.writeVersion3) { state in
            func key(_ gid: String) -> GlobalObjectKey { GlobalObjectKey(entity: "Book", gid: gid) }
            #expect(try state.read { tx in try tx.object(key("b1"))?.localKey } == 7)
            #expect(try state.read { tx in try tx.object(key("b2"))?.localKey } == 8)
            #expect(try state.read { tx in try tx.object(key("b3")).map { $0.localKey == nil && $0.exists } } == true)
            #expect(try state.read { tx in try tx.gid(entity: "Book", localKey: 8) } == "b2")
            #expect(try state.write { tx in try tx.dirtyObjectsWithValues(after: nil, limit: 10).map(\.0) } == [key("b2"), key("b3"), key("b4")])
            #expect(try state.read { tx in try tx.reservations() }.map(\.1) == [9])
            let columns = try state.read { tx in try Row.fetchAll(tx.db, sql: "PRAGMA table_info(objects)").map { $0["name"] as String } }
            #expect(!columns.contains("local_key") && !columns.contains("dirty"))
            #expect(try state.read { tx in try Int.fetchOne(tx.db, sql: "PRAGMA user_version") } == SyncStateSchema.version)
            // The unique row per entity still holds: another object cannot take row 7.
            #expect(throws: (any Error).self) { try state.write { tx in try tx.setLocalKey(key("b3"), 7) } }
            // Settling the reservation gives b4 its row and cleans it.
            try state.write { tx in try tx.settle(reserved: [key("b4")], clean: [key("b4")]) }
            #expect(try state.read { tx in try tx.object(key("b4"))?.localKey } == 9)
            #expect(try state.write { tx in try tx.dirtyObjectsWithValues(after: nil, limit: 10).map(\.0) } == [key("b2"), key("b3")])
        }
    }

    /// Cells in the layout of schemas 2 to 4: each cell's stamp written in full.
    static func schema4Cells(_ cells: [(String, Stamp, [UInt8])]) -> [UInt8] {
        var writer = ByteWriter()
        writer.writeVarint(UInt64(cells.count))
        for (property, stamp, value) in cells {
            writer.writeString(property); writer.writeSigned(stamp.lamport); writer.writeSigned(stamp.milliseconds)
            writer.writeString(stamp.peer); writer.writeBytes(value)
        }
        return writer.bytes
    }

    /// Writes a schema 4 state at `url` holding Book b1 with `cells` (bytes of any layout).
    static func writeVersion4(at url: URL, cells: [UInt8]) throws {
        let hex = cells.map { String(format: "%02x", $0) }.joined()
        try writeState(at: url, version: 4, SyncStateSchema.statements + [
            "INSERT INTO objects (entity, gid, ins_l, ins_t, ins_p, cells) VALUES ('Book', 'b1', 3, 10, 'PEER', x'\(hex)')",
            "INSERT INTO locals VALUES ('Book', 'b1', 7)",
        ])
    }

    @Test func aVersion4StatesCellsArePackedAgainWithEachStampOnce() throws {
        let shared = Stamp(lamport: 3, milliseconds: 10, peer: "PEER-A"), later = Stamp(lamport: 5, milliseconds: 11, peer: "PEER-B")
        let old = Self.schema4Cells([("author", shared, [1]), ("rating", later, [2]), ("title", shared, [3, 4])])
        try Self.withOpened({ try Self.writeVersion4(at: $0, cells: old) }) { state in
            #expect(try state.read { tx in try tx.cells(of: Self.book) } == ["author": [1], "rating": [2], "title": [3, 4]])
            #expect(try state.read { tx in try tx.object(Self.book)?.localKey } == 7)
            #expect(try state.read { tx in try Int.fetchOne(tx.db, sql: "PRAGMA user_version") } == SyncStateSchema.version)
            let stamps = try state.read { tx in try tx.allRecords() }.filter { if case .cell = $0.record { true } else { false } }.map(\.stamp)
            #expect(stamps == [shared, later, shared])
            // Each distinct stamp's peer is written once in the row.
            let packed = try state.read { tx in try Data.fetchOne(tx.db, sql: "SELECT cells FROM objects") }.map { [UInt8]($0) } ?? []
            #expect(Self.occurrences(of: Array("PEER-A".utf8), in: packed) == 1)
            #expect(Self.occurrences(of: Array("PEER-B".utf8), in: packed) == 1)
            #expect(packed.count < old.count)
        }
    }

    @Test func aVersion4StatesEmptyCellsStayEmpty() throws {
        try Self.withOpened({ try Self.writeVersion4(at: $0, cells: []) }) { (state: SyncState) throws in
            #expect(try state.read { tx in try tx.cells(of: Self.book) }.isEmpty)
        }
    }

    @Test func aVersion4StatesDamagedCellsAreACorruptStateError() throws {
        let folder = TemporaryFolder()
        let url = folder.url.appending(path: "state.sqlite")
        try Self.writeVersion4(at: url, cells: [0x05, 0xFF])
        do {
            let state = try SyncState(url: url)
            try? state.close()
            Issue.record("a state with damaged cells was migrated")
        } catch {
            #expect(error.code == .corruptState)
        }
    }

    static func occurrences(of needle: [UInt8], in haystack: [UInt8]) -> Int {
        guard haystack.count >= needle.count else { return 0 }
        return (0...(haystack.count - needle.count)).filter { Array(haystack[$0..<($0 + needle.count)]) == needle }.count
    }

    @Test func aNewStateHasLargePagesAndAnOldOneKeepsItsOwn() throws {
        try Self.withOpened({ _ in }) { (state: SyncState) throws in
            #expect(try state.read { tx in try Int.fetchOne(tx.db, sql: "PRAGMA page_size") } == SyncState.pageSize)
        }
        try Self.withOpened(Self.writeVersion3) { (old: SyncState) throws in
            #expect(try old.read { tx in try Int.fetchOne(tx.db, sql: "PRAGMA page_size") } == 4_096, "SQLite's default, as the file was written")
        }
    }

    @Test func damagedPackedCellsAreACorruptStateError() throws {
        let folder = TemporaryFolder()
        let state = try SyncState(url: folder.url.appending(path: "state.sqlite"))
        defer { try? state.close() }
        _ = try state.write { tx in try tx.merge([Self.stamped(1, "title", [1])], dirty: true) }
        try state.write { tx in try tx.db.execute(sql: "UPDATE objects SET cells = x'05FF'") }
        do {
            _ = try state.read { tx in try tx.cells(of: Self.book) }
            Issue.record("damaged cells were read without an error")
        } catch {
            #expect(error.code == .corruptState)
        }
    }

    @Test func packedCellsKeepTheNewestStampAndPackTheSameBytes() throws {
        var a = PackedCells(), b = PackedCells()
        let title2B = Stamp(lamport: 2, milliseconds: 0, peer: "B"), title2A = Stamp(lamport: 2, milliseconds: 0, peer: "A")
        let rating1A = Stamp(lamport: 1, milliseconds: 0, peer: "A")
        let aMerges = [a.merge("title", value: [1], stamp: title2B), a.merge("rating", value: [2], stamp: rating1A),
                       a.merge("title", value: [3], stamp: title2A), a.merge("title", value: [4], stamp: title2B)]
        // An older peer id at the same count loses; an equal stamp keeps the value held.
        #expect(aMerges == [true, true, false, false])
        // Another merge order reaches the same cells and the same bytes.
        let bMerges = [b.merge("rating", value: [2], stamp: rating1A), b.merge("title", value: [3], stamp: title2A),
                       b.merge("title", value: [1], stamp: title2B)]
        #expect(bMerges == [true, true, true])
        #expect(a.bytes == b.bytes)
        #expect(PackedCells(a.bytes)?.entries == a.entries)
        #expect(a["title"] == PackedCells.Cell(stamp: title2B, value: [1]))
        #expect(a.entries.map(\.property) == ["rating", "title"])
        #expect(PackedCells(Array(a.bytes.dropLast())) == nil)
        // Properties out of order (or twice), or a stamp the packing lacks, are not a packing this code wrote.
        for (names, index) in [(["rating", "title"], 0), (["title", "rating"], 0), (["title", "title"], 0), (["rating", "title"], 1)] {
            var writer = ByteWriter()
            writer.writeVarint(1)
            writer.writeSigned(1); writer.writeSigned(0); writer.writeString("A")
            writer.writeVarint(2)
            for name in names { writer.writeString(name); writer.writeVarint(UInt64(index)); writer.writeBytes([1]) }
            #expect((PackedCells(writer.bytes) != nil) == (names == ["rating", "title"] && index == 0), "\(names) \(index)")
        }
        // Schemas 2 to 4 wrote each stamp in full; only the migration reads that layout.
        let old = Self.schema4Cells(a.entries.map { ($0.property, $0.cell.stamp, $0.cell.value) })
        #expect(PackedCells(schema4: old)?.entries == a.entries)
        #expect(PackedCells(schema4: Self.schema4Cells([("title", title2A, [1]), ("rating", title2A, [1])])) == nil)
    }
}

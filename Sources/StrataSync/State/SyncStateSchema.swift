import Foundation
import GRDB

/// The tables of a peer's local sync state (one SQLite file per ensemble, beside the store).
///
/// - `meta`: the peer's identifier, its Lamport clock, its next event number, the store's
///   history token it has exported up to, and the cloud identity it attached to.
/// - `objects`: every object the ensemble knows, by entity and global identifier, with the
///   stamps of its latest insert and delete and its `cells`: each property's winning value and
///   its stamp, packed into one blob (``PackedCells``). Written by merges only.
/// - `locals`: an object's row in the local store, when it has one (unique per entity).
/// - `dirty`: the objects the store must be brought up to date with, in key order (the
///   materializer reads them in pieces).
/// - `reserved`: the store rows a merge's save is about to insert, by object, written before
///   that save and emptied in the state transaction after it: a crash between the two leaves
///   them for ``StoreMaterializer/recoverPending(coordinator:)`` to confirm or forget.
/// - `members`: each to-many member's latest join or leave and its stamp.
/// - `dangling`: links the store lacks because their target had no row when the referrer was
///   written (rule 7 reads them as none); the referrer is written again once it has one. A
///   target that names no existing object is noted under the relationship's destination, which
///   may be a superentity of the object that later gets the row.
/// - `integrated`: the event files merged; `coverage`: what merged baselines held.
/// - `outbox`: files written but not yet seen whole in the cloud (`uploaded` once sent, until a
///   listing shows them at their size).
///
/// Versions: 1 kept one `cells` row per property (text-keyed); 2 packs an object's cells into
/// its `objects` row, so a merge reads and writes one row per object; 3 moves reservations
/// from a `pending` flag on the `objects` row (three rewrites of that row per inserted object)
/// to the `reserved` table (one); 4 moves `local_key` and `dirty` out of `objects` into the
/// narrow `locals` and `dirty` tables, so a merge's save settles its objects without rewriting
/// their cells (a backlog's settling costs two fifths as much in SQLite); 5 packs each
/// distinct stamp of an object's cells once (``PackedCells``), halving a typical row. Older files are migrated
/// in place when they are opened (``migrate(_:from:)``); a file of a later version than this
/// code knows is refused with `corruptState` (delete the local sync data and resync).
enum SyncStateSchema {
    static let version = 5

    static let statements = [
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID",
        """
        CREATE TABLE IF NOT EXISTS objects (entity TEXT NOT NULL, gid TEXT NOT NULL,
            ins_l INTEGER, ins_t INTEGER, ins_p TEXT, del_l INTEGER, del_t INTEGER, del_p TEXT,
            cells BLOB, PRIMARY KEY (entity, gid)) WITHOUT ROWID
        """,
        localsTable,
        "CREATE UNIQUE INDEX IF NOT EXISTS locals_by_local ON locals (entity, local_key)",
        dirtyTable,
        reservedTable,
        """
        CREATE TABLE IF NOT EXISTS members (entity TEXT NOT NULL, gid TEXT NOT NULL, relationship TEXT NOT NULL, member TEXT NOT NULL,
            present INTEGER NOT NULL, l INTEGER NOT NULL, t INTEGER NOT NULL, p TEXT NOT NULL,
            PRIMARY KEY (entity, gid, relationship, member)) WITHOUT ROWID
        """,
        "CREATE TABLE IF NOT EXISTS integrated (name TEXT PRIMARY KEY NOT NULL, peer TEXT NOT NULL, seq INTEGER NOT NULL, lamport INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE INDEX IF NOT EXISTS integrated_by_peer ON integrated (peer, seq)",
        "CREATE TABLE IF NOT EXISTS coverage (peer TEXT PRIMARY KEY NOT NULL, seq INTEGER NOT NULL, lamport INTEGER NOT NULL) WITHOUT ROWID",
        // Links the store lacks because their target had no row (deleted, unknown, not created
        // yet): when it gets one, the referrer is marked dirty (`StateTransaction.resolveDanglingLinks(to:)`).
        """
        CREATE TABLE IF NOT EXISTS dangling (entity TEXT NOT NULL, gid TEXT NOT NULL, ref_entity TEXT NOT NULL, ref_gid TEXT NOT NULL,
            PRIMARY KEY (entity, gid, ref_entity, ref_gid)) WITHOUT ROWID
        """,
        "CREATE TABLE IF NOT EXISTS outbox (name TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, uploaded INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID",
    ]

    static let localsTable = """
        CREATE TABLE IF NOT EXISTS locals (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER NOT NULL,
            PRIMARY KEY (entity, gid)) WITHOUT ROWID
        """

    static let dirtyTable = "CREATE TABLE IF NOT EXISTS dirty (entity TEXT NOT NULL, gid TEXT NOT NULL, PRIMARY KEY (entity, gid)) WITHOUT ROWID"

    static let reservedTable = """
        CREATE TABLE IF NOT EXISTS reserved (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER NOT NULL,
            PRIMARY KEY (entity, gid)) WITHOUT ROWID
        """

    /// Brings a state file of schema `version` (older than ``version``) up to this schema,
    /// inside the opening transaction.
    static func migrate(_ db: Database, from version: Int) throws {
        if version == 1 { try migrateFrom1(db) }
        if version <= 2 { try migrateFrom2(db) }
        if version <= 3 { try migrateFrom3(db) }
        // Version 1's cells were packed by `migrateFrom1`, already in this layout.
        if version >= 2 && version <= 4 { try migrateFrom4(db) }
    }

    /// Schema 4 → 5: every object's cells are packed again, each distinct stamp once. Rows
    /// are read in key order, a thousand at a time. Cells that do not unpack are a damaged
    /// state (`corruptState`), as they are when a merge reads them.
    private static func migrateFrom4(_ db: Database) throws {
        let write = try db.makeStatement(sql: "UPDATE objects SET cells = ? WHERE entity = ? AND gid = ?")
        var cursor = GlobalObjectKey(entity: "", gid: "")
        while true {
            let rows = try Row.fetchAll(db, sql: """
                SELECT entity, gid, cells FROM objects WHERE (entity, gid) > (?, ?) AND cells IS NOT NULL ORDER BY entity, gid LIMIT 1000
                """, arguments: [cursor.entity, cursor.gid])
            guard let last = rows.last else { return }
            for row in rows {
                let key = GlobalObjectKey(entity: row[0], gid: row[1])
                guard let data = Data.fromDatabaseValue(row[2]) else {
                    throw SyncError(.corruptState, "the local sync state holds damaged cells for \(key.entity) \(key.gid)")
                }
                if data.isEmpty { continue }   // no cells, as a merge reads it
                guard let cells = PackedCells(schema4: [UInt8](data)) else {
                    throw SyncError(.corruptState, "the local sync state holds damaged cells for \(key.entity) \(key.gid)")
                }
                try write.execute(arguments: [Data(cells.bytes), key.entity, key.gid])
            }
            let next = GlobalObjectKey(entity: last[0], gid: last[1])
            // Keys read back in order, each after the last (a key SQLite and Swift read otherwise would loop).
            guard cursor < next else { throw SyncError(.corruptState, "the local sync state's objects do not read back in order") }
            cursor = next
        }
    }

    /// Schema 3 → 4: each object's row in the store moves to `locals`, its dirty flag to a row
    /// of `dirty`, and both columns (with their indexes) leave `objects`.
    private static func migrateFrom3(_ db: Database) throws {
        try db.execute(sql: localsTable)
        try db.execute(sql: dirtyTable)
        try db.execute(sql: "INSERT INTO locals (entity, gid, local_key) SELECT entity, gid, local_key FROM objects WHERE local_key IS NOT NULL")
        try db.execute(sql: "INSERT INTO dirty (entity, gid) SELECT entity, gid FROM objects WHERE dirty = 1")
        for index in ["objects_by_local", "objects_dirty_keys", "objects_dirty"] { try db.execute(sql: "DROP INDEX IF EXISTS \(index)") }
        try db.execute(sql: "ALTER TABLE objects DROP COLUMN local_key")
        try db.execute(sql: "ALTER TABLE objects DROP COLUMN dirty")
    }

    /// Schema 2 → 3: an object flagged `pending` holds its reserved row in `local_key`; the
    /// reservation moves to `reserved` (the object's row forgets it until the save is
    /// confirmed, as a version 3 reservation does) and the flag goes.
    private static func migrateFrom2(_ db: Database) throws {
        try db.execute(sql: reservedTable)
        try db.execute(sql: "INSERT OR REPLACE INTO reserved (entity, gid, local_key) SELECT entity, gid, local_key FROM objects WHERE pending = 1 AND local_key IS NOT NULL")
        try db.execute(sql: "UPDATE objects SET local_key = NULL, dirty = 1 WHERE pending = 1")
        try db.execute(sql: "DROP INDEX IF EXISTS objects_pending")
        try db.execute(sql: "ALTER TABLE objects DROP COLUMN pending")
    }

    /// Schema 1 → 2: each object's `cells` rows become one packed blob in its objects row.
    private static func migrateFrom1(_ db: Database) throws {
        try db.execute(sql: "ALTER TABLE objects ADD COLUMN cells BLOB")
        let write = try db.makeStatement(sql: """
            INSERT INTO objects (entity, gid, cells) VALUES (?, ?, ?) ON CONFLICT (entity, gid) DO UPDATE SET cells = excluded.cells
            """)
        var current: GlobalObjectKey?
        var packed = PackedCells()
        func flush() throws {
            guard let key = current else { return }
            try write.execute(arguments: [key.entity, key.gid, Data(packed.bytes)])
        }
        let rows = try Row.fetchCursor(db, sql: "SELECT entity, gid, property, l, t, p, value FROM cells ORDER BY entity, gid")
        while let row = try rows.next() {
            let key = GlobalObjectKey(entity: row[0], gid: row[1])
            if key != current { try flush(); current = key; packed = PackedCells() }
            packed.merge(row[2], value: [UInt8](row[6] as Data), stamp: Stamp(lamport: row[3], milliseconds: row[4], peer: row[5]))
        }
        try flush()
        try db.execute(sql: "DROP TABLE cells")
    }
}

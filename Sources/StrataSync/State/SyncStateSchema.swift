/// The tables of a peer's local sync state (one SQLite file per ensemble, beside the store).
///
/// - `meta`: the peer's identifier, its Lamport clock, its next event number, the store's
///   history token it has exported up to, and the cloud identity it attached to.
/// - `objects`: every object the ensemble knows, by entity and global identifier, with the
///   stamps of its latest insert and delete, its row in the local store (if any), and whether
///   the store must be brought up to date with it (`dirty`).
/// - `cells`: each property's winning value and its stamp.
/// - `members`: each to-many member's latest join or leave and its stamp.
/// - `integrated`: the event files merged; `coverage`: what merged baselines held.
/// - `outbox`: files written but not yet seen whole in the cloud (`uploaded` once sent, until a
///   listing shows them at their size).
enum SyncStateSchema {
    static let version = 1

    static let statements = [
        "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY NOT NULL, value) WITHOUT ROWID",
        """
        CREATE TABLE IF NOT EXISTS objects (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER, pending INTEGER NOT NULL DEFAULT 0,
            ins_l INTEGER, ins_t INTEGER, ins_p TEXT, del_l INTEGER, del_t INTEGER, del_p TEXT, dirty INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (entity, gid)) WITHOUT ROWID
        """,
        "CREATE UNIQUE INDEX IF NOT EXISTS objects_by_local ON objects (entity, local_key) WHERE local_key IS NOT NULL",
        // The dirty objects in key order: the materializer reads them in pieces.
        "DROP INDEX IF EXISTS objects_dirty",
        "CREATE INDEX IF NOT EXISTS objects_dirty_keys ON objects (entity, gid) WHERE dirty = 1",
        "CREATE INDEX IF NOT EXISTS objects_pending ON objects (pending) WHERE pending = 1",
        """
        CREATE TABLE IF NOT EXISTS cells (entity TEXT NOT NULL, gid TEXT NOT NULL, property TEXT NOT NULL,
            l INTEGER NOT NULL, t INTEGER NOT NULL, p TEXT NOT NULL, value BLOB NOT NULL,
            PRIMARY KEY (entity, gid, property)) WITHOUT ROWID
        """,
        """
        CREATE TABLE IF NOT EXISTS members (entity TEXT NOT NULL, gid TEXT NOT NULL, relationship TEXT NOT NULL, member TEXT NOT NULL,
            present INTEGER NOT NULL, l INTEGER NOT NULL, t INTEGER NOT NULL, p TEXT NOT NULL,
            PRIMARY KEY (entity, gid, relationship, member)) WITHOUT ROWID
        """,
        "CREATE TABLE IF NOT EXISTS integrated (name TEXT PRIMARY KEY NOT NULL, peer TEXT NOT NULL, seq INTEGER NOT NULL, lamport INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE INDEX IF NOT EXISTS integrated_by_peer ON integrated (peer, seq)",
        "CREATE TABLE IF NOT EXISTS coverage (peer TEXT PRIMARY KEY NOT NULL, seq INTEGER NOT NULL, lamport INTEGER NOT NULL) WITHOUT ROWID",
        "CREATE TABLE IF NOT EXISTS outbox (name TEXT PRIMARY KEY NOT NULL, data BLOB NOT NULL, uploaded INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID",
    ]
}

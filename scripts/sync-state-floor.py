#!/usr/bin/env python3
"""SQLite's own cost of the sync state's writes for a backlog of inserts, with no Swift in the way
(docs/sync.md, "Where a backlog's time goes"). Replays, through Python's executemany, what a merge,
a reservation and a settling write for N objects (random UUID keys in key order, 180-byte packed
cells), in the state's schema 3 and in a narrower shape (local_key and dirty in tables of their own).

    python3 scripts/sync-state-floor.py [N]     default 20200, 3 repeats; prints seconds per step
"""
import os, sqlite3, sys, tempfile, time, uuid

N = int(sys.argv[1]) if len(sys.argv) > 1 else 20200
keys = sorted(("Book", str(uuid.uuid4())) for _ in range(N))
cells = os.urandom(180)
rows = [(e, g, 5, 1700000000000, "3f2a9c1e-peer-abcdef", None, None, None, cells) for e, g in keys]
reservations = [(e, g, i + 1) for i, (e, g) in enumerate(keys)]
INSERT = "INSERT INTO objects (entity, gid, ins_l, ins_t, ins_p, del_l, del_t, del_p, cells{}) VALUES (?,?,?,?,?,?,?,?,?{})"
RESERVED = "CREATE TABLE reserved (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER NOT NULL, PRIMARY KEY (entity, gid)) WITHOUT ROWID"


def fresh(folder):
    db = sqlite3.connect(os.path.join(folder, f"state-{time.time_ns()}.sqlite"), isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


def timed(db, *steps):
    began = time.perf_counter()
    db.execute("BEGIN")
    for step in steps:
        step()
    db.execute("COMMIT")
    return time.perf_counter() - began


def schema3(db, set_based):
    db.execute("""CREATE TABLE objects (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER,
        ins_l INTEGER, ins_t INTEGER, ins_p TEXT, del_l INTEGER, del_t INTEGER, del_p TEXT, dirty INTEGER NOT NULL DEFAULT 0,
        cells BLOB, PRIMARY KEY (entity, gid)) WITHOUT ROWID""")
    db.execute("CREATE UNIQUE INDEX objects_by_local ON objects (entity, local_key) WHERE local_key IS NOT NULL")
    db.execute("CREATE INDEX objects_dirty_keys ON objects (entity, gid) WHERE dirty = 1")
    db.execute(RESERVED)
    merge = timed(db, lambda: db.executemany(INSERT.format(", dirty", ", 1"), rows))
    reserve = timed(db, lambda: db.executemany("INSERT OR REPLACE INTO reserved VALUES (?,?,?)", reservations))
    if set_based:
        settle = timed(db, lambda: db.execute("UPDATE objects SET local_key = r.local_key, dirty = 0 FROM reserved r "
                                              "WHERE objects.entity = r.entity AND objects.gid = r.gid"),
                       lambda: db.execute("DELETE FROM reserved"))
    else:
        settle = timed(db, lambda: db.executemany("UPDATE objects SET local_key = ?, dirty = 0 WHERE entity = ? AND gid = ?",
                                                  [(k, e, g) for e, g, k in reservations]),
                       lambda: db.execute("DELETE FROM reserved"))
    return merge, reserve, settle


def narrow(db):
    db.execute("""CREATE TABLE objects (entity TEXT NOT NULL, gid TEXT NOT NULL,
        ins_l INTEGER, ins_t INTEGER, ins_p TEXT, del_l INTEGER, del_t INTEGER, del_p TEXT,
        cells BLOB, PRIMARY KEY (entity, gid)) WITHOUT ROWID""")
    db.execute("CREATE TABLE locals (entity TEXT NOT NULL, gid TEXT NOT NULL, local_key INTEGER NOT NULL, PRIMARY KEY (entity, gid)) WITHOUT ROWID")
    db.execute("CREATE UNIQUE INDEX locals_by_local ON locals (entity, local_key)")
    db.execute("CREATE TABLE dirty (entity TEXT NOT NULL, gid TEXT NOT NULL, PRIMARY KEY (entity, gid)) WITHOUT ROWID")
    db.execute(RESERVED)
    merge = timed(db, lambda: db.executemany(INSERT.format("", ""), rows),
                  lambda: db.executemany("INSERT OR IGNORE INTO dirty VALUES (?,?)", keys))
    reserve = timed(db, lambda: db.executemany("INSERT OR REPLACE INTO reserved VALUES (?,?,?)", reservations))
    settle = timed(db, lambda: db.execute("INSERT OR REPLACE INTO locals SELECT entity, gid, local_key FROM reserved"),
                   lambda: db.execute("DELETE FROM dirty WHERE (entity, gid) IN (SELECT entity, gid FROM reserved)"),
                   lambda: db.execute("DELETE FROM reserved"))
    return merge, reserve, settle


with tempfile.TemporaryDirectory() as folder:
    print(f"SQLite {sqlite3.sqlite_version}, {N} objects; seconds: merge, reserve, settle, total")
    for _ in range(3):
        for label, run in [("schema 3, settle per row ", lambda db: schema3(db, False)),
                           ("schema 3, settle set-based", lambda db: schema3(db, True)),
                           ("narrow tables            ", narrow)]:
            db = fresh(folder)
            merge, reserve, settle = run(db)
            db.close()
            print(f"{label}  {merge:.3f}  {reserve:.3f}  {settle:.3f}  {merge + reserve + settle:.3f}")

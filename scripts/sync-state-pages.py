#!/usr/bin/env python3
"""SQLite's cost of one backlog file's merge into the sync state, by page size and packed-cell
size, with no Swift in the way (docs/sync.md, "Downloads aside, stamps packed once"). For N
objects (random UUID keys in key order) over a state already holding N others: a read of each
object's row, the `objects` inserts, the `dirty` inserts, and the commit, in WAL mode.

    python3 scripts/sync-state-pages.py [N]     default 10100 (one file of the Sandbox's backlog)
"""
import os, sqlite3, sys, tempfile, time, uuid

N = int(sys.argv[1]) if len(sys.argv) > 1 else 10100
OBJECTS = """CREATE TABLE objects (entity TEXT NOT NULL, gid TEXT NOT NULL, ins_l INTEGER, ins_t INTEGER, ins_p TEXT,
    del_l INTEGER, del_t INTEGER, del_p TEXT, cells BLOB, PRIMARY KEY (entity, gid)) WITHOUT ROWID"""
DIRTY = "CREATE TABLE dirty (entity TEXT NOT NULL, gid TEXT NOT NULL, PRIMARY KEY (entity, gid)) WITHOUT ROWID"


def run(page_size, cell_bytes):
    keys = sorted(("Book", str(uuid.uuid4())) for _ in range(N))
    rows = [(e, g, 5, 1700000000000, str(uuid.uuid4()), None, None, None, os.urandom(cell_bytes)) for e, g in keys]
    db = sqlite3.connect(os.path.join(tempfile.mkdtemp(), "state.sqlite"), isolation_level=None)
    db.execute(f"PRAGMA page_size={page_size}")
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(OBJECTS)
    db.execute(DIRTY)
    earlier = sorted(("Book", str(uuid.uuid4())) for _ in range(N))
    db.execute("BEGIN")
    db.executemany("INSERT INTO objects VALUES (?,?,?,?,?,?,?,?,?)", [(e, g, 5, 1, "p", None, None, None, os.urandom(cell_bytes)) for e, g in earlier])
    db.execute("COMMIT")
    began = time.perf_counter()
    db.execute("BEGIN")
    for row in rows:
        db.execute("SELECT * FROM objects WHERE entity = ? AND gid = ?", (row[0], row[1])).fetchone()
    read = time.perf_counter()
    db.executemany("INSERT INTO objects VALUES (?,?,?,?,?,?,?,?,?)", rows)
    objects = time.perf_counter()
    db.executemany("INSERT INTO dirty VALUES (?,?)", keys)
    dirty = time.perf_counter()
    db.execute("COMMIT")
    done = time.perf_counter()
    ms = lambda a, b: (b - a) * 1000
    print(f"page {page_size:5} cells {cell_bytes:3}: read {ms(began, read):5.1f}  objects {ms(read, objects):5.1f}  "
          f"dirty {ms(objects, dirty):5.1f}  commit {ms(dirty, done):5.1f}  total {ms(began, done):5.1f} ms")


for cell_bytes in (300, 130):
    for page_size in (4096, 8192, 16384):
        run(page_size, cell_bytes)

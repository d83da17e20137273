import Dispatch
import GRDB
import GRDBSQLite
import Synchronization

/// Runs a store's write-ahead-log checkpoints on a background queue, on a connection of its
/// own, instead of on the thread whose commit crossed SQLite's threshold.
///
/// SQLite's automatic checkpoint runs inside the commit that finds 1 000 pages in the log: that
/// commit copies them into the main file and syncs it, tens of milliseconds, on whichever queue
/// saved — the main queue for a main-queue root context (a drag-and-drop's save, one in every
/// few hundred). Here each commit's log size comes to ``committed(pages:connection:)`` (SQLite's
/// WAL hook, which replaces the automatic checkpoint on the writer) and, from ``threshold``
/// pages, a passive checkpoint is started on the checkpointer's queue: it copies what it can
/// while saves go on appending, and the next save after a complete one starts the log over.
/// The next one starts only when another ``threshold`` pages have been appended (or the log
/// has started over): under a stream of small saves a checkpoint rarely completes before
/// the next commit, and starting one after every commit from the threshold on ran one for
/// every three or four saves, each scanning the log's index and syncing the file.
/// Should it fall behind or fail (it cannot open its connection, say), the committing
/// connection checkpoints itself at ``ceiling`` pages, so the log stays bounded.
///
/// For example (inside the coordinator):
/// ```swift
/// let checkpointer = WALCheckpointer(path: url.path, busyTimeout: 5)
/// configuration.prepareDatabase { db in checkpointer.install(db) }
/// …
/// checkpointer.close()   // before the coordinator's last checkpoint
/// ```
final class WALCheckpointer: Sendable {
    /// Log pages after a commit from which a background checkpoint starts: SQLite's default
    /// automatic checkpoint.
    static let threshold: Int32 = 1_000
    /// Log pages from which the committing connection checkpoints itself (SQLite's automatic
    /// checkpoint, ten times later).
    static let ceiling: Int32 = 10_000

    private let path: String
    private let busyTimeout: Double
    private let queue = DispatchQueue(label: "strata.wal-checkpoint", qos: .utility)
    /// A checkpoint is queued or running: commits meanwhile start none.
    private let scheduled = Atomic<Bool>(false)
    private let isClosed = Atomic<Bool>(false)
    /// The checkpointer's connection, opened on first use on `queue`.
    private let connection = Locked<DatabaseQueue?>(nil)
    /// Background checkpoints run so far, and the log's pages after the latest commit (for
    /// tests and diagnostics).
    let checkpoints = Atomic<Int>(0)
    let logPages = Atomic<Int32>(0)
    /// The log's size from which the next background checkpoint starts: ``threshold``, or
    /// ``threshold`` pages past the size at which the latest one started.
    private let nextStart = Atomic<Int32>(threshold)

    init(path: String, busyTimeout: Double) {
        self.path = path
        self.busyTimeout = busyTimeout
    }

    /// Makes `db`'s commits report their log size here instead of checkpointing themselves.
    /// The caller keeps the checkpointer alive as long as the connection (SQLite holds an
    /// unretained pointer to it): the coordinator calls this from its `prepareDatabase`
    /// closure, which each connection's configuration keeps. Readers never commit, so only the
    /// writer's hook runs.
    func install(_ db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, { context, connection, _, pages in
            guard let context else { return SQLITE_OK }
            Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(pages: pages, connection: connection)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// One commit left `pages` pages in the log (called by SQLite on the committing thread,
    /// after the commit, with the write lock released).
    private func committed(pages: Int32, connection: OpaquePointer?) {
        let previous = logPages.exchange(pages, ordering: .relaxed)
        if pages >= Self.ceiling {
            sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)   // SQLITE_BUSY: another checkpoint runs; fine
            return
        }
        if pages < previous { nextStart.store(Self.threshold, ordering: .relaxed) }   // the log started over
        guard pages >= nextStart.load(ordering: .relaxed), !isClosed.load(ordering: .acquiring),
              scheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        nextStart.store(pages + Self.threshold, ordering: .relaxed)
        queue.async { [self] in
            defer { scheduled.store(false, ordering: .releasing) }
            checkpoint()
        }
    }

    /// A passive checkpoint on the checkpointer's own connection: it copies what no reader still
    /// needs, waits for nobody, and a failure leaves the log as it was (the ceiling catches it).
    private func checkpoint() {
        connection.withLock { connection in
            guard !isClosed.load(ordering: .acquiring) else { return }
            if connection == nil {
                var configuration = Configuration()
                configuration.busyMode = .timeout(busyTimeout)
                connection = try? DatabaseQueue(path: path, configuration: configuration)
            }
            guard let connection else { return }
            if (try? connection.writeWithoutTransaction({ db in try db.checkpoint(.passive) })) != nil {
                checkpoints.add(1, ordering: .relaxed)
            }
        }
    }

    /// Stops checkpointing and closes the connection; waits for a checkpoint under way.
    func close() {
        isClosed.store(true, ordering: .releasing)
        connection.withLock { connection in
            try? connection?.close()
            connection = nil
        }
    }
}

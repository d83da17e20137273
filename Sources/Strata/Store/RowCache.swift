import Foundation
import Synchronization

/// The coordinator's row cache, shared by its contexts (Core Data's row cache): the rows it
/// read from the store, with when they were read, so a context firing a fault on a row another
/// context just read does not go to SQLite.
///
/// - **Filled** by every read of rows: fetches, faults, `existingObject(with:)`.
/// - **Used** by faults and reads of rows by ID, when the row is younger than the reading
///   context's `stalenessInterval` (negative: any age; 0: never).
/// - **Kept exact for this process.** A save through the coordinator evicts the rows it wrote
///   (after its commit); any other write through it (batch requests) empties the cache. A
///   commit by another coordinator of the process on the same file (``StoreFileCommits``)
///   empties it before its next use. A commit by another process empties it when the
///   coordinator notices one: at its next write (`SQLITE_FCNTL_DATA_VERSION`, as
///   ``StoreKeys`` checks), at its next read on a connection that saw the file change while
///   no coordinator of the process committed, and when
///   ``StoreCoordinator/hasExternalChanges()`` says so.
/// - **Races.** A read takes a ``Token`` before it starts; its rows are kept only if nothing
///   was evicted or emptied meanwhile, so a read that began before a commit cannot put the
///   old row back after the commit evicted it.
/// - **Shared or nothing.** While the coordinator has a single context, reads neither look
///   rows up nor keep them (evictions still run), so the hot paths of a one-context user do
///   not pay for the cache.
/// - **Bounded**: at most ``capacity`` rows, the oldest stored evicted first. A read of more
///   rows than that (a large fetch) refreshes the rows already cached and adds none.
///
/// For example (inside the coordinator):
/// ```swift
/// let token = rowCache.token()
/// let rows = try readFromSQLite(keys)
/// rowCache.store(rows, token: token)
/// ```
final class RowCache: Sendable {
    /// Taken before a read: what the cache was when the read began, and when that was.
    struct Token {
        var epoch: UInt64
        var time: UInt64
    }

    private struct Entry {
        var row: RowSnapshot
        /// When the read that brought the row began (the cache's clock, nanoseconds).
        var readAt: UInt64
        /// The order of storing, for eviction (matches one entry of `order`).
        var sequence: UInt64
    }

    private struct State {
        var entries: [ObjectID: Entry] = [:]
        /// IDs in the order stored (with their sequence; stale pairs are skipped), from `head`.
        var order: [(ObjectID, UInt64)] = []
        var head = 0
        var nextSequence: UInt64 = 0
        /// Moves whenever rows are evicted or the cache is emptied.
        var epoch: UInt64 = 0
        /// The file's commits by this process's coordinators that the cache accounted for.
        var commitsSeen: UInt64
        /// Nanoseconds of a monotonic clock (replaceable in tests).
        var clock: @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
        /// Per reader connection (by address): the data version its last read saw, and the
        /// file's commit count by this process's coordinators just before that read.
        var connections: [UInt: (version: UInt32, commits: UInt64)] = [:]
        /// Reads answered from the cache and from the store, for tests and diagnostics.
        var hits = 0
        var misses = 0

        mutating func removeAll() {
            if !entries.isEmpty || !order.isEmpty {
                entries.removeAll()
                order.removeAll()
                head = 0
            }
            epoch &+= 1
        }

        /// Empties the cache when another coordinator of the process committed to the file.
        mutating func catchUp(_ commits: UInt64) {
            guard commits != commitsSeen else { return }
            commitsSeen = commits
            removeAll()
        }

        mutating func trim(to capacity: Int) {
            while entries.count > capacity, head < order.count {
                let (id, sequence) = order[head]
                head += 1
                if let entry = entries.removeValue(forKey: id), entry.sequence != sequence { entries[id] = entry }   // stored again since: keep
            }
            // Drop the pairs already passed, and stale ones, once they outnumber the live ones.
            if head > 0 && order.count - head < head || order.count > 2 * capacity + 64 {
                order = order[head...].filter { entries[$0.0]?.sequence == $0.1 }
                head = 0
            }
        }
    }

    /// The most rows kept (0: no cache).
    let capacity: Int
    /// Contexts alive on the coordinator. With one (or none) there is nobody to share rows
    /// with, and reads skip the cache (a refresh evicts the context's own rows anyway): a
    /// single-context user pays nothing for it.
    private let contexts = Atomic<Int>(0)
    private let fileCommits: StoreFileCommits
    private let state: Locked<State>   // not `Mutex`: ThreadSanitizer must see this lock (see `Locked`)

    init(capacity: Int, fileCommits: StoreFileCommits) {
        self.capacity = max(0, capacity)
        self.fileCommits = fileCommits
        self.state = Locked(State(commitsSeen: fileCommits.count.load(ordering: .acquiring)))
    }

    /// A context on the coordinator was made.
    func contextOpened() { contexts.add(1, ordering: .relaxed) }
    /// A context on the coordinator went away.
    func contextClosed() { contexts.subtract(1, ordering: .relaxed) }
    /// Whether reads use the cache: it is on and two contexts or more may share rows.
    var isShared: Bool { capacity > 0 && contexts.load(ordering: .relaxed) > 1 }

    /// Rows of `entity` cached for `keys`, read at most `staleness` seconds ago (negative:
    /// any age; 0: none), and the keys to read from the store. With every key found, `missing`
    /// is empty; `rows` follow `keys`' order.
    func lookup(_ entity: EntityDescription, keys: [Int64], staleness: TimeInterval) -> (rows: [RowSnapshot], missing: [Int64]) {
        guard capacity > 0, staleness != 0 else { return ([], keys) }
        let commits = fileCommits.count.load(ordering: .acquiring)
        return state.withLock { state in
            state.catchUp(commits)
            guard !state.entries.isEmpty else {
                state.misses += keys.count
                return ([], keys)
            }
            let now = state.clock()
            let oldest: UInt64 = staleness < 0 ? 0 : now &- min(now, UInt64(min(staleness, 1e9) * 1e9))
            var rows: [RowSnapshot] = []
            var missing: [Int64] = []
            for (i, key) in keys.enumerated() {
                if let entry = state.entries[ObjectID(entity: entity, key: key)], entry.readAt >= oldest {
                    if rows.isEmpty {   // the first hit: the keys before it were all missed
                        rows.reserveCapacity(keys.count - i)
                        missing = Array(keys[..<i])
                    }
                    rows.append(entry.row)
                } else if !rows.isEmpty {
                    missing.append(key)
                }
            }
            if rows.isEmpty { missing = keys }   // no hit (a page nobody read yet): no copy
            state.hits += rows.count
            state.misses += missing.count
            return (rows, missing)
        }
    }

    /// Taken before reading rows from the store, for ``store(_:token:)``.
    func token() -> Token {
        guard capacity > 0 else { return Token(epoch: 0, time: 0) }
        let commits = fileCommits.count.load(ordering: .acquiring)
        return state.withLock { state in
            state.catchUp(commits)
            return Token(epoch: state.epoch, time: state.clock())
        }
    }

    /// Whether rows read from the store since `token` was taken are still the store's as far as
    /// this cache can tell (nothing evicted or emptied since: no commit through a coordinator of
    /// the process, no refresh, no external change noticed), and were read at most `staleness`
    /// seconds ago (negative: any age; 0: never good enough). Always false with the cache off.
    func isCurrent(_ token: Token, staleness: TimeInterval) -> Bool {
        guard capacity > 0, staleness != 0 else { return false }
        let commits = fileCommits.count.load(ordering: .acquiring)
        return state.withLock { state in
            state.catchUp(commits)
            guard state.epoch == token.epoch else { return false }
            return staleness < 0 || state.clock() &- token.time <= UInt64(min(staleness, 1e9) * 1e9)
        }
    }

    /// Keeps rows read from the store since `token` was taken, unless the cache was evicted
    /// from or emptied meanwhile (the rows may predate a commit).
    func store(_ rows: [RowSnapshot], token: Token) {
        guard capacity > 0, !rows.isEmpty else { return }
        let commits = fileCommits.count.load(ordering: .acquiring)
        state.withLock { state in
            state.catchUp(commits)
            guard state.epoch == token.epoch else { return }
            if rows.count > capacity {
                // A bulk read would only flush the cache: refresh what is there, add nothing.
                guard !state.entries.isEmpty else { return }
                for row in rows where state.entries[row.id] != nil {
                    state.entries[row.id]?.row = row
                    state.entries[row.id]?.readAt = token.time
                }
                return
            }
            for row in rows {
                let sequence = state.nextSequence
                state.nextSequence &+= 1
                state.entries[row.id] = Entry(row: row, readAt: token.time, sequence: sequence)
                state.order.append((row.id, sequence))
            }
            state.trim(to: capacity)
        }
    }

    /// After a commit of this coordinator: forgets the rows it wrote (`ids`), or every row when
    /// `ids` is nil, and accounts for the commit in the file's shared count.
    func didCommit(evicting ids: [ObjectID]?) {
        guard capacity > 0 else {
            fileCommits.count.add(1, ordering: .acquiringAndReleasing)
            return
        }
        let evicted = state.withLock { state -> [RowSnapshot] in
            let commits = fileCommits.count.add(1, ordering: .acquiringAndReleasing).newValue
            var evicted: [RowSnapshot] = []
            if state.commitsSeen &+ 1 == commits && ids != nil {
                state.commitsSeen = commits   // only this commit happened since the cache last looked
                if let ids, !state.entries.isEmpty {
                    // Taken out, not freed here: freeing a row is most of an eviction's cost.
                    evicted.reserveCapacity(min(ids.count, state.entries.count))
                    for id in ids {
                        if let entry = state.entries.removeValue(forKey: id) { evicted.append(entry.row) }
                    }
                }
                state.epoch &+= 1
            } else {
                state.commitsSeen = commits
                state.removeAll()
            }
            return evicted
        }
        // After the lock; off the main queue when a save there evicted many rows.
        let count = evicted.count
        LargeValueRelease.release(consume evicted, changes: count)
    }

    /// The file's commit count by this process's coordinators, taken before a read for
    /// ``didRead(on:dataVersion:commitsBefore:)``.
    var commitsNow: UInt64 { fileCommits.count.load(ordering: .acquiring) }

    /// After a read on `connection` (its `SQLITE_FCNTL_DATA_VERSION` inside the read's
    /// transaction): empties the cache when the connection saw the file change since its
    /// previous read while no coordinator of this process committed to it — another process
    /// did. When this process committed too, the change is not attributed (it is noticed at
    /// the next write or ``StoreCoordinator/hasExternalChanges()``).
    func didRead(on connection: UInt, dataVersion: UInt32?, commitsBefore: UInt64) {
        guard capacity > 0, let dataVersion else { return }
        state.withLock { state in
            let previous = state.connections.updateValue((dataVersion, commitsBefore), forKey: connection)
            if let previous, previous.version != dataVersion, previous.commits == commitsBefore {
                state.removeAll()
                fileCommits.externalChanges.add(1, ordering: .relaxed)
            }
        }
    }

    /// Forgets every row (another process wrote to the file).
    func removeAll() {
        guard capacity > 0 else { return }
        state.withLock { $0.removeAll() }
    }

    /// Forgets the rows of `ids` (an object refreshed: its next fault reads the store).
    func evict(_ ids: [ObjectID]) {
        guard capacity > 0, !ids.isEmpty else { return }
        state.withLock { state in
            guard !state.entries.isEmpty else { return }
            for id in ids { state.entries[id] = nil }
            state.epoch &+= 1
        }
    }

    // MARK: For tests and diagnostics

    /// Rows cached now.
    var count: Int { state.withLock { $0.entries.count } }
    /// Rows answered from the cache, and rows it did not have (or had too old), so far.
    var lookups: (hits: Int, misses: Int) { state.withLock { ($0.hits, $0.misses) } }
    /// Replaces the clock (monotonic nanoseconds) that timestamps rows and judges their age.
    func setClock(_ clock: @escaping @Sendable () -> UInt64) { state.withLock { $0.clock = clock } }
}

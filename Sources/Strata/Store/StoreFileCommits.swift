import Foundation
import Synchronization

/// A count of the commits made to one store file by the coordinators of this process, shared
/// by every coordinator open on that file. Each coordinator's row cache compares it with the
/// commits it accounted for, so a row another coordinator of the process just rewrote is never
/// served from a cache (writes by other processes are noticed through SQLite's data version
/// instead; see ``RowCache``).
///
/// For example (inside the engine):
/// ```swift
/// let commits = StoreFileCommits.shared(for: url)
/// commits.count.add(1, ordering: .releasing)
/// ```
final class StoreFileCommits: Sendable {
    /// Commits to the file by this process's coordinators since the first one opened it.
    let count = Atomic<UInt64>(0)
    /// The same commits numbered in the order they committed: each takes its number inside its
    /// transaction, holding SQLite's write lock, so a later commit has a higher number (`count`
    /// moves after the commit, for the row caches). Change sets carry these numbers.
    let sequence = Atomic<UInt64>(0)
    /// How many times a coordinator of this process noticed another process's commit to the
    /// file (or was asked, ``StoreCoordinator/hasExternalChanges()``): a merge does not fill
    /// faults from a save's inserts across such a change.
    let externalChanges = Atomic<UInt64>(0)
    /// The number (in ``sequence``) of the last batch update or delete: its change set goes
    /// back to its caller only, so no context may have heard of it, and a merge does not fill
    /// faults from a save's inserts older than it.
    let lastBatchRequest = Atomic<UInt64>(0)

    /// Counters by file path (standardised, symbolic links resolved). An entry costs a few
    /// bytes and is kept for the process's life, so two coordinators opened one after the
    /// other on the same file share a counter.
    private static let byPath = Locked<[String: StoreFileCommits]>([:])

    /// The counter of the file at `url`.
    static func shared(for url: URL) -> StoreFileCommits {
        let path = url.standardizedFileURL.resolvingSymlinksInPath().path
        return byPath.withLock { table in
            if let counter = table[path] { return counter }
            let counter = StoreFileCommits()
            table[path] = counter
            return counter
        }
    }
}

public import Foundation

/// Where a coordinator keeps its data.
///
/// For example:
/// ```swift
/// let onDisk = StoreDescription.sqlite(URL(fileURLWithPath: "/tmp/notes.sqlite"))
/// let scratch = StoreDescription.inMemory
/// ```
public enum StoreDescription: Sendable, Hashable {
    /// A SQLite file (created when missing), in WAL mode.
    case sqlite(URL, options: StoreOptions = StoreOptions())
    /// A private in-memory SQLite database, gone when the coordinator is.
    case inMemory

    /// A SQLite file with default options.
    public static func sqlite(_ url: URL) -> StoreDescription { .sqlite(url, options: StoreOptions()) }
}

/// Tuning for a SQLite store.
///
/// For example:
/// ```swift
/// var options = StoreOptions()
/// options.busyTimeout = 10
/// let store = StoreDescription.sqlite(url, options: options)
/// ```
public struct StoreOptions: Sendable, Hashable {
    /// Seconds a connection waits for another one's write lock before reporting busy.
    public var busyTimeout: Double = 5
    /// Log every SQL statement through swift-log at `.trace` (label `strata.sql`).
    public var logsSQL = false
    /// Migrate a store written with another model when the change can be inferred (the
    /// default, like Core Data's automatic migration with inferred mapping). When `false`, such
    /// a store is refused with `.modelMismatch` and left untouched. See docs/migration.md.
    public var migratesAutomatically = true
    /// Keep a history of every change in the store, written in the same transaction as the
    /// change (Core Data's persistent history): saves of every context and coordinator on the
    /// file and batch requests. Once on, it stays on for the file (every coordinator records).
    /// Read it with ``StoreCoordinator/history(after:limit:)``. See docs/history.md.
    public var recordsHistory = false
    /// The most rows the coordinator's row cache keeps (0 turns it off). The cache holds the
    /// rows the coordinator read, shared by its contexts: a context firing a fault on a row
    /// that another context read within its `stalenessInterval` takes it from there instead of
    /// SQLite. The oldest rows are evicted first. See docs/architecture.md, "Row cache".
    ///
    /// For example:
    /// ```swift
    /// var options = StoreOptions()
    /// options.rowCacheCapacity = 0   // every fault reads SQLite
    /// ```
    public var rowCacheCapacity = 10_000

    /// Default options: 5 s busy timeout, no SQL log, automatic lightweight migration, a row
    /// cache of 10 000 rows.
    public init() {}
}

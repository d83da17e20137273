import Foundation
import GRDB

/// A peer's local sync state for one ensemble: the merge state (every object's stamps, every
/// property's winning value), the map from global identifiers to the store's rows, the files
/// merged, and the files waiting to go up. One SQLite file, written in transactions, so a
/// crash leaves it as it was before or after a step, never between.
///
/// Only the ensemble that owns it uses it, from its own actor.
final class SyncState: Sendable {
    let url: URL
    private let queue: DatabaseQueue

    /// Opens (creating if needed) the state at `url`.
    ///
    /// - Throws: `SyncError.corruptState` when the file is not a sync state SQLite can read.
    init(url: URL) throws(SyncError) {
        self.url = url
        do {
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var configuration = Configuration()
            configuration.busyMode = .timeout(5)
            queue = try DatabaseQueue(path: url.path, configuration: configuration)
            // Outside a transaction: SQLite refuses to change the journal mode inside one.
            try queue.writeWithoutTransaction { db in
                // A new file's pages (an existing file keeps its own): a backlog's merge writes
                // megabytes of rows, and 16 KiB pages make it about 5 % faster than 4 KiB ones
                // (fewer pages to split, log and copy back; docs/sync.md).
                try db.execute(sql: "PRAGMA page_size = \(Self.pageSize)")
                try db.execute(sql: "PRAGMA journal_mode = WAL")
            }
            try queue.write { db in
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                guard version <= SyncStateSchema.version else {
                    throw SyncError(.corruptState, "the local sync state was written by a later version of StrataSync (schema \(version))", path: url.path)
                }
                if version > 0 && version < SyncStateSchema.version { try SyncStateSchema.migrate(db, from: version) }
                for statement in SyncStateSchema.statements { try db.execute(sql: statement) }
                try db.execute(sql: "PRAGMA user_version = \(SyncStateSchema.version)")
                let check = try String.fetchOne(db, sql: "PRAGMA quick_check")
                guard check == "ok" else {
                    throw SyncError(.corruptState, "the local sync state fails SQLite's check: \(check ?? "no answer")", path: url.path)
                }
            }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.corruptState, "the local sync state cannot be opened: \(error)", path: url.path, underlying: error)
        }
    }

    /// The page size of a new state file.
    static let pageSize = 16_384

    /// Runs `body` in one write transaction.
    func write<T>(_ body: (StateTransaction) throws -> T) throws(SyncError) -> T {
        do {
            return try queue.write { db in try body(StateTransaction(db: db)) }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.corruptState, "the local sync state cannot be written: \(error)", path: url.path, underlying: error)
        }
    }

    /// Runs `body` with a consistent read.
    func read<T>(_ body: (StateTransaction) throws -> T) throws(SyncError) -> T {
        do {
            return try queue.read { db in try body(StateTransaction(db: db)) }
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.corruptState, "the local sync state cannot be read: \(error)", path: url.path, underlying: error)
        }
    }

    /// Closes the file (the state can be deleted afterwards).
    func close() throws {
        try queue.close()
    }
}

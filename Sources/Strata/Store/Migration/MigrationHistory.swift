public import Foundation
import GRDB

/// One entry of a store's model history: its creation, or a migration applied to it.
///
/// For example:
/// ```swift
/// for record in try coordinator.migrationHistory() {
///     print(record.date, record.fromHash ?? "created", "→", record.toHash, record.changes)
/// }
/// ```
public struct MigrationRecord: Sendable, Hashable {
    /// The model hash before (`nil` when the store was created, or its schema first recorded).
    public var fromHash: String?
    /// The model hash after.
    public var toHash: String
    /// When it happened.
    public var date: Date
    /// What changed, one line per change (`add Note.rating`, `rename Note.name to title`, ...).
    public var changes: [String]
}

/// The `_strata_migrations` table: every model version a store has had, in order. A store
/// whose history holds the hash of the model opening it has moved past that model, so it is
/// refused (``StrataError/Code/storeTooNew``) instead of being downgraded.
enum MigrationHistory {
    static let table = "_strata_migrations"

    static let createStatement = """
        CREATE TABLE IF NOT EXISTS \(table) (id INTEGER PRIMARY KEY, from_hash TEXT, to_hash TEXT NOT NULL, \
        applied_at REAL NOT NULL, changes TEXT NOT NULL)
        """

    /// Appends an entry.
    static func record(_ db: Database, from: String?, to: String, changes: [String]) throws {
        try db.execute(sql: "INSERT INTO \(table) (from_hash, to_hash, applied_at, changes) VALUES (?, ?, ?, ?)",
                       arguments: [from, to, Date().timeIntervalSince1970, changes.joined(separator: "\n")])
    }

    /// The entries, oldest first (none when the store predates the table).
    static func records(_ db: Database) throws -> [MigrationRecord] {
        guard try db.tableExists(table) else { return [] }
        return try Row.fetchAll(db, sql: "SELECT from_hash, to_hash, applied_at, changes FROM \(table) ORDER BY id").map { row in
            let changes: String = row["changes"]
            return MigrationRecord(fromHash: row["from_hash"], toHash: row["to_hash"],
                                   date: Date(timeIntervalSince1970: row["applied_at"]),
                                   changes: changes.isEmpty ? [] : changes.split(separator: "\n").map(String.init))
        }
    }
}

extension StoreCoordinator {
    /// The store's model history, oldest first: its creation (or the first open that recorded
    /// its schema) and every lightweight migration applied since, with what changed.
    ///
    /// For example:
    /// ```swift
    /// let last = try coordinator.migrationHistory().last
    /// print(last?.changes ?? [])
    /// ```
    public func migrationHistory() throws(StrataError) -> [MigrationRecord] {
        do {
            return try database.read { try MigrationHistory.records($0) }
        } catch {
            throw StrataError(.storeFailure, "The migration history could not be read: \(error)", underlying: error)
        }
    }
}

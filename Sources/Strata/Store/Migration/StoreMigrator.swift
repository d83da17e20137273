import Foundation
import GRDB

/// Decides whether a store written with another model can be opened, and migrates it.
///
/// Everything that can refuse runs first on a read-only connection (``decide(_:metadata:model:migratesAutomatically:path:)``),
/// so a refused store is left byte for byte as it was. The migration itself runs on the
/// writer in one exclusive transaction, with foreign keys checked before commit, after a
/// backup copy of the store is taken (removed once the migration committed).
enum StoreMigrator {
    /// What opening a store needs.
    enum Decision {
        /// The store was written with this model.
        case current
        /// The store can be migrated from `old`, its recorded model.
        case migrate(old: ObjectModel)
    }

    /// Where the backup copy of the store at `path` is kept while it migrates.
    static func backupPath(for path: String) -> String { path + ".migration-backup" }

    /// Checks the store open (read-only or inside the migration's transaction) in `db`.
    ///
    /// A store is newer than the model when its history shows it once had this model's hash
    /// and it now holds entities or keys this model does not know: migrating would remove them.
    ///
    /// - Throws: `.modelMismatch` (automatic migration off, no recorded schema, or no entity in
    ///   common), `.storeTooNew`, `.migrationRequired` or `.migrationFailed`.
    static func decide(_ db: Database, metadata: StoreMetadata, model: ObjectModel, migratesAutomatically: Bool, path: String) throws(StrataError) -> Decision {
        if metadata.modelHash == model.versionHash { return .current }
        let history: [MigrationRecord]
        do { history = try MigrationHistory.records(db) } catch { throw StoreOpener.classify(error, path: path) }
        let wasThisModel = history.contains { $0.fromHash == model.versionHash || $0.toHash == model.versionHash }
        guard let json = metadata.schemaJSON else {
            throw StrataError(.modelMismatch, "\(path) was written with model \(metadata.modelHash); this model is \(model.versionHash). The store predates recorded schemas, so it cannot be migrated yet: open it once with its own model (which records its schema), then with this one.")
        }
        let old = try StoredSchema.decode(json, path: path).model(path: path)
        let planner = MigrationPlanner(old: old, new: model, db: db)
        // Newer: the store once had this model, moved on, and now holds what this model does not know.
        let unknown = planner.unknownToNewModel
        if wasThisModel && !unknown.isEmpty {
            throw StrataError(.storeTooNew, "\(path) was migrated from this model (\(model.versionHash)) to a newer one (\(metadata.modelHash)) that has \(unknown.prefix(5).joined(separator: ", ")), which this model does not know. Strata never downgrades a store: open it with the newer model.")
        }
        guard migratesAutomatically else {
            throw StrataError(.modelMismatch, "\(path) was written with model \(metadata.modelHash); this model is \(model.versionHash), and automatic migration is off. Turn on StoreOptions.migratesAutomatically, or open the store with its own model.")
        }
        guard planner.sharesAnEntity else {
            throw StrataError(.modelMismatch, "\(path) was written with model \(metadata.modelHash) (entities \(old.entities.map(\.name).joined(separator: ", "))), which shares no entity with this model (\(model.versionHash)); it is probably another app's store. Open it with its own model.")
        }
        _ = try planner.plan()
        return .migrate(old: old)
    }

    /// Migrates the store open in `database` to `model` in one exclusive transaction, unless
    /// another connection did it meanwhile. Keeps a backup copy of the store until the
    /// migration committed; returns the plan that ran (nil when there was nothing to do).
    @discardableResult
    static func migrate(_ database: any DatabaseWriter, to model: ObjectModel, path: String) throws(StrataError) -> MigrationPlan? {
        let backup = backupPath(for: path)
        var applied: MigrationPlan?
        do {
            try database.writeWithoutTransaction { db in
                // Rebuilding a table drops it while others still name it: foreign keys are off
                // during the transaction (they cannot change inside one) and checked before commit.
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                try db.inTransaction(.exclusive) {
                    let metadata = try StoreMetadata.read(db, path: path)
                    guard case .migrate(let old) = try decide(db, metadata: metadata, model: model, migratesAutomatically: true, path: path) else {
                        return .commit  // another connection migrated it first
                    }
                    let plan = try MigrationPlanner(old: old, new: model, db: db).plan()
                    MigrationStep.began.reached()
                    try copy(path, to: backup)
                    MigrationStep.backedUp.reached()
                    for (index, statement) in plan.statements.enumerated() {
                        do { try db.execute(sql: statement) } catch {
                            throw StrataError(.migrationFailed, "Migrating \(path) failed at \(statement): \(error). The store is left as it was; a copy taken before the migration is at \(backup).", sql: statement, underlying: error)
                        }
                        MigrationStep.statement(index).reached()
                    }
                    // Tables altered in place keep their rows and their checks; copied ones are checked.
                    for table in plan.rebuiltTables {
                        if let violation = try Row.fetchOne(db, sql: "PRAGMA foreign_key_check(\(quoted(table)))") {
                            let key: Int64? = violation["rowid"]
                            throw StrataError(.migrationFailed, "Migrating \(path) would leave row \(key.map(String.init) ?? "?") of \(table) pointing to a row of \(violation["parent"] as String? ?? "?") that does not exist. The store is left as it was; a copy taken before the migration is at \(backup).", entity: table)
                        }
                    }
                    try db.execute(sql: MigrationHistory.createStatement)
                    try StoreMetadata.write(model, in: db)
                    try MigrationHistory.record(db, from: old.versionHash, to: model.versionHash, changes: plan.summary)
                    applied = plan
                    MigrationStep.recorded.reached()
                    return .commit
                }
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.migrationFailed, "Migrating \(path) failed: \(error). The store is left as it was.", underlying: error)
        }
        if applied != nil { MigrationStep.committed.reached() }
        removeBackup(at: backup)
        if applied != nil { MigrationStep.finished.reached() }
        return applied
    }

    /// Records the schema (and starts the history) of a store written before Strata recorded
    /// them, when it is opened with its own model; does nothing when another connection did.
    static func recordSchema(_ database: any DatabaseWriter, model: ObjectModel, path: String) throws(StrataError) {
        do {
            try database.writeWithoutTransaction { db in
                try db.inTransaction(.exclusive) {
                    let metadata = try StoreMetadata.read(db, path: path)
                    guard metadata.schemaJSON == nil, metadata.modelHash == model.versionHash else { return .commit }
                    try db.execute(sql: MigrationHistory.createStatement)
                    try StoreMetadata.write(model, in: db)
                    try MigrationHistory.record(db, from: nil, to: model.versionHash, changes: ["record schema"])
                    return .commit
                }
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.storeFailure, "The schema of \(path) could not be recorded: \(error)", underlying: error)
        }
    }

    /// Copies the store at `source` to a fresh file at `path` through a read-only connection of
    /// its own. The migration's transaction holds the write lock meanwhile, so the copy is the
    /// last committed state: the one being migrated (WAL readers do not wait for the writer).
    private static func copy(_ source: String, to path: String) throws {
        removeBackup(at: path)
        var configuration = Configuration()
        configuration.readonly = true
        let reader = try DatabaseQueue(path: source, configuration: configuration)
        defer { try? reader.close() }
        let destination = try DatabaseQueue(path: path)
        defer { try? destination.close() }
        try reader.backup(to: destination)
    }

    private static func removeBackup(at path: String) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }
}

public import Foundation
import GRDB
import Synchronization

/// Connects contexts to one store: it opens the SQLite file, checks it belongs to the
/// model, and runs every read and every save transaction.
///
/// Opening is asynchronous and never runs on the caller's thread, so opening from the main
/// queue does not stall it.
///
/// For example:
/// ```swift
/// let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
/// let context = ObjectContext(.privateQueue, coordinator: coordinator)
/// ```
public final class StoreCoordinator: Sendable {
    /// The model the store was opened with.
    public let model: ObjectModel
    /// Where the data lives.
    public let store: StoreDescription
    /// The store's UUID, written when it was created.
    public let storeIdentifier: UUID

    /// The connections: a WAL pool for files, a queue for in-memory stores.
    let database: any DatabaseWriter
    /// SQL recorded for tests and diagnostics (see ``recordingSQL(_:)``).
    let sqlRecorder: SQLRecorder
    /// Runs the file's write-ahead-log checkpoints off the saving thread (nil for an in-memory store).
    let checkpointer: WALCheckpointer?
    /// The statements a save runs, built once from the model.
    let saveSQL: SaveSQL
    /// The primary-key counters, remembered between this coordinator's writes.
    let keys = StoreKeys()
    /// Observers of every save through this coordinator (root contexts subscribe here to learn
    /// about each other's saves).
    let saveObservers = ChangeObservers()
    /// Whether every write also records its changes in the store's history
    /// (``StoreOptions/recordsHistory``, kept by the file once set).
    ///
    /// For example:
    /// ```swift
    /// guard coordinator.recordsHistory else { throw MyError.historyOff }
    /// ```
    public let recordsHistory: Bool
    /// Write transactions that ran on the main queue.
    let mainQueueWriteCount = Atomic<Int>(0)
    /// The rows this coordinator read, shared by its contexts (see ``RowCache``).
    let rowCache: RowCache
    /// The commits of this process's coordinators to the file, counted and numbered.
    let fileCommits: StoreFileCommits

    /// How many write transactions (saves, batch requests) this coordinator ran on the main
    /// queue. A stack that keeps SQLite writes off the main queue keeps this at zero.
    ///
    /// For example:
    /// ```swift
    /// assert(coordinator.mainQueueWrites == 0)
    /// ```
    public var mainQueueWrites: Int { mainQueueWriteCount.load(ordering: .relaxed) }

    /// The `PRAGMA data_version` of the writer connection when last checked (see
    /// ``hasExternalChanges()``).
    let lastDataVersion = Locked<(version: Int64, commits: UInt64)?>(nil)

    /// Runs a write transaction, counting it when it runs on the main queue.
    ///
    /// Another connection or process holding the write lock makes SQLite wait in its busy
    /// handler (up to ``StoreOptions/busyTimeout``); a busy result that still arrives before
    /// that deadline is retried after a short pause, so a save fails with `.storeBusy` only
    /// once the lock has been held elsewhere for the whole timeout. `body` runs again on a
    /// retry: the failed attempt's transaction was rolled back.
    ///
    /// `changedRows` names the rows the transaction wrote, for the row cache to forget after
    /// the commit; `nil` (the default) forgets every cached row.
    func write<T>(changedRows: ((T) -> [ObjectID])? = nil, _ body: (Database) throws -> T) throws -> T {
        try numberedWrite(changedRows: changedRows, body).result
    }

    /// ``write(changedRows:_:)``, also returning the commit's number among the commits this
    /// process's coordinators made to the file (``StoreFileCommits/sequence``): a later commit
    /// has a higher one.
    func numberedWrite<T>(changedRows: ((T) -> [ObjectID])? = nil, _ body: (Database) throws -> T) throws -> (result: T, commit: UInt64) {
        if MainQueue.isCurrent { mainQueueWriteCount.add(1, ordering: .relaxed) }
        let timeout: Double = if case .sqlite(_, let options) = store { options.busyTimeout } else { 0 }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while true {
            do {
                let (result, number) = try database.writeWithoutTransaction { db in try inImmediateTransaction(db, body) }
                rowCache.didCommit(evicting: changedRows?(result))
                return (result, number)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: Double.random(in: 0.002...0.010))
            }
        }
    }

    /// Runs `body` between `BEGIN IMMEDIATE` and `COMMIT` (rolled back if it throws), as
    /// GRDB's `write` does, but with both statements prepared once per connection: a
    /// one-object save spent about a fifth of its instructions preparing them again.
    /// Returns the commit's number in ``StoreFileCommits/sequence``.
    private func inImmediateTransaction<T>(_ db: Database, _ body: (Database) throws -> T) throws -> (T, UInt64) {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE TRANSACTION").execute()
        switch keys.begin(db, lastCommitOfProcess: fileCommits.sequence.load(ordering: .acquiring)) {
        case .nobody: break
        case .somebody: rowCache.removeAll()
        case .anotherProcess:   // as `hasExternalChanges()` and the row cache's reads count it
            rowCache.removeAll()
            fileCommits.externalChanges.add(1, ordering: .relaxed)
        }
        let result: T
        let number: UInt64
        do {
            result = try body(db)
            number = fileCommits.sequence.add(1, ordering: .acquiringAndReleasing).newValue   // holding the write lock: in commit order
            try db.cachedStatement(sql: "COMMIT TRANSACTION").execute()
        } catch {
            keys.didRollBack()
            if db.isInsideTransaction { try? db.rollback() }   // (SQLite may have rolled back already); the body's error is the one to report
            throw error
        }
        keys.didCommit(db, number: number)
        return (result, number)
    }

    /// Opens (creating if needed) the store described by `store` for `model`.
    ///
    /// A store written with another model is migrated when the change can be inferred and
    /// ``StoreOptions/migratesAutomatically`` is on (see docs/migration.md).
    ///
    /// - Throws: ``StrataError`` `.notAStore`, `.corruptStore`, `.modelMismatch`,
    ///   `.migrationRequired`, `.migrationFailed` or `.storeTooNew` for a file that cannot be
    ///   used as is; the file is then left as it was.
    public init(model: ObjectModel, store: StoreDescription) async throws(StrataError) {
        let recorder: SQLRecorder = if case .sqlite(_, let options) = store { SQLRecorder(logsSQL: options.logsSQL) } else { SQLRecorder(logsSQL: false) }
        let checkpointer: WALCheckpointer? = if case .sqlite(let url, let options) = store { WALCheckpointer(path: url.path, busyTimeout: options.busyTimeout) } else { nil }
        let opened = await Task.detached { () -> Result<(any DatabaseWriter, UUID, Bool), StrataError> in
            do throws(StrataError) {
                let (database, identifier) = try Self.open(model: model, store: store, recorder: recorder, checkpointer: checkpointer)
                let requested = if case .sqlite(_, let options) = store { options.recordsHistory } else { false }
                do {
                    return .success((database, identifier, try HistoryTables.prepare(database, requested: requested)))
                } catch {
                    var failure = StoreCoordinator.storeError(error)  // a read-only file is .readOnlyStore, a full disk .storeFull
                    failure.message = "The store's history could not be prepared: \(failure.message)"
                    throw failure
                }
            } catch {
                return .failure(error)
            }
        }.value
        let (database, identifier, recordsHistory) = try opened.get()
        self.recordsHistory = recordsHistory
        self.model = model
        self.store = store
        self.database = database
        self.storeIdentifier = identifier
        self.sqlRecorder = recorder
        self.checkpointer = checkpointer
        self.saveSQL = SaveSQL(model: model)
        let capacity: Int = if case .sqlite(_, let options) = store { options.rowCacheCapacity } else { StoreOptions().rowCacheCapacity }
        let commits: StoreFileCommits = if case .sqlite(let url, _) = store { StoreFileCommits.shared(for: url) } else { StoreFileCommits() }
        self.fileCommits = commits
        self.rowCache = RowCache(capacity: capacity, fileCommits: commits)
        _ = try? hasExternalChanges()  // the baseline: changes from now on count
    }

    private static func open(model: ObjectModel, store: StoreDescription, recorder: SQLRecorder,
                             checkpointer: WALCheckpointer?) throws(StrataError) -> (any DatabaseWriter, UUID) {
        var configuration = Configuration()
        if case .sqlite(_, let options) = store { configuration.busyMode = .timeout(options.busyTimeout) }
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            ConnectionSetup.prepare(db)
            // The connection's configuration keeps this closure, and so the recorder and the
            // checkpointer, alive as long as the connection: the unretained pointers SQLite
            // holds to them stay valid.
            recorder.trace(db)
            checkpointer?.install(db)
        }
        let database: any DatabaseWriter
        var contents: StoreOpener.Contents
        let path: String = if case .sqlite(let url, _) = store { url.path } else { ":memory:" }
        do {
            switch store {
            case .inMemory:
                contents = .empty
                database = try DatabaseQueue(configuration: configuration)
            case .sqlite(let url, let options):
                contents = try StoreOpener.inspect(url, model: model, options: options)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                // A file that cannot be written opens read-only: it reads, and saves are `.readOnlyStore`.
                var poolConfiguration = configuration
                if contents != .empty && !FileManager.default.isWritableFile(atPath: url.path) { poolConfiguration.readonly = true }
                database = try openPool(at: url.path, configuration: poolConfiguration, busyTimeout: options.busyTimeout)
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StoreOpener.classify(error, path: path)
        }
        if case .empty = contents {
            if let identifier = try createSchema(in: database, model: model, path: path) { return (database, identifier) }
            // Another connection created the store meanwhile: check what it wrote, as for any store.
            guard case .sqlite(let url, let options) = store else { throw StrataError(.storeFailure, "The in-memory store already has tables.") }
            contents = try StoreOpener.inspect(url, model: model, options: options)
        }
        switch contents {
        case .empty:
            throw StrataError(.storeFailure, "\(path) has no tables after it was created.")
        case .store(let identifier, let recordsSchema):
            if !recordsSchema { try StoreMigrator.recordSchema(database, model: model, path: path) }
            return (database, identifier)
        case .needsMigration(let identifier):
            try StoreMigrator.migrate(database, to: model, path: path)
            return (database, identifier)
        }
    }

    /// Opens the connection pool on `path`, retrying while another connection holds the lock that
    /// switching a new file to WAL needs (two processes opening the same new store): GRDB runs
    /// that `PRAGMA journal_mode` outside the busy handler. Gives up after `busyTimeout` seconds.
    private static func openPool(at path: String, configuration: Configuration, busyTimeout: Double) throws -> DatabasePool {
        let deadline = ContinuousClock.now + .milliseconds(Int(busyTimeout * 1000))
        while true {
            do {
                return try DatabasePool(path: path, configuration: configuration)
            } catch let error as DatabaseError where error.resultCode == .SQLITE_BUSY && ContinuousClock.now < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// Creates the tables of a new store in one exclusive transaction and returns its
    /// identifier, or returns nil when another connection or process created them since the
    /// file was inspected (after waiting for it, up to the busy timeout).
    private static func createSchema(in database: any DatabaseWriter, model: ObjectModel, path: String) throws(StrataError) -> UUID? {
        do {
            return try database.writeWithoutTransaction { db in
                var identifier: UUID? = UUID()
                try db.inTransaction(.exclusive) {
                    let exists = try Bool.fetchOne(db, sql: "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = ?",
                                                   arguments: [StoreSchema.metadataTable]) ?? false
                    if exists {
                        identifier = nil
                        return .commit
                    }
                    for statement in StoreSchema.createStatements(for: model) { try db.execute(sql: statement) }
                    let insert = "INSERT INTO \(StoreSchema.metadataTable) (key, value) VALUES (?, ?)"
                    try db.execute(sql: insert, arguments: [StoreMetadata.identifierKey, identifier?.uuidString ?? ""])
                    try db.execute(sql: insert, arguments: [StoreMetadata.formatKey, StoreSchema.formatVersion])
                    try StoreMetadata.write(model, in: db)
                    try MigrationHistory.record(db, from: nil, to: model.versionHash, changes: ["create store"])
                    return .commit
                }
                return identifier
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw StoreOpener.classify(error, path: path)
        }
    }

    /// A URI naming `id` in this store, as Core Data's `uriRepresentation()` does:
    /// `strata://<store identifier>/<entity>/p<key>`. ``objectID(forURI:)`` of a coordinator on
    /// another store refuses it. (``ObjectID/uriRepresentation`` has no store in it: an
    /// `ObjectID` is a small value that does not know its store.)
    ///
    /// For example:
    /// ```swift
    /// let uri = coordinator.uriRepresentation(for: note.objectID)   // strata://6F1C…/Note/p42
    /// ```
    public func uriRepresentation(for id: ObjectID) -> URL {
        // The entity name is a validated identifier and the host a UUID, so the URL is always well formed.
        URL(string: "strata://\(storeIdentifier.uuidString)/\(id.entity.name)/\(id.isTemporary ? "t" : "p")\(id.key)")!  // programmer error if it fails
    }

    /// The ID named by a URI from ``uriRepresentation(for:)`` or ``ObjectID/uriRepresentation``,
    /// if it names an entity of this model — and, when the URI names a store, this store.
    ///
    /// For example:
    /// ```swift
    /// let id = coordinator.objectID(forURI: coordinator.uriRepresentation(for: note.objectID))
    /// ```
    public func objectID(forURI uri: URL) -> ObjectID? {
        let parts = uri.path.split(separator: "/")
        if let host = uri.host, !host.isEmpty, UUID(uuidString: host) != storeIdentifier { return nil }
        guard uri.scheme == "strata", parts.count == 2, let entity = model.entity(named: String(parts[0])),
              let kind = parts[1].first, kind == "p" || kind == "t", let key = Int64(parts[1].dropFirst())
        else { return nil }
        return ObjectID(entity: entity, key: key, isTemporary: kind == "t")
    }

    /// Runs `body` and returns the SQL statements this coordinator executed meanwhile (on any
    /// connection), without transaction control and GRDB's own bookkeeping. Meant for tests
    /// and diagnostics.
    ///
    /// For example:
    /// ```swift
    /// let statements = try await coordinator.recordingSQL { try await context.perform { try context.fetch(request).count } }
    /// ```
    public func recordingSQL<T>(_ body: () async throws -> T) async rethrows -> (T, [String]) {
        sqlRecorder.start()
        let result = try await body()
        return (result, sqlRecorder.stop())
    }

    /// Calls `handler` with the change set of every save to the store through this
    /// coordinator (on the saving context's queue). This is how another coordinator's contexts
    /// learn about these saves: pass the change set to their `merge(_:)`.
    ///
    /// For example:
    /// ```swift
    /// let token = importCoordinator.observeSaves { changes in
    ///     main.perform { main.merge(changes) }
    /// }
    /// ```
    public func observeSaves(_ handler: @escaping @Sendable (ChangeSet) -> Void) -> ChangeObservation {
        saveObservers.addChangeHandler(handler)
    }

    /// Tells every save observer but the saver's own subscription (a root context's) about a save.
    func publishSave(_ changes: ChangeSet, from saver: UUID?) {
        saveObservers.publish(changes, skipping: saver)
    }

    /// Closes the connections. Further use of this coordinator's contexts fails.
    ///
    /// The write-ahead log is checkpointed into the main file first (when no other connection
    /// reads it at that moment), so the file alone holds every save: GRDB closes its read-only
    /// readers last, and they cannot checkpoint. The background checkpointer is stopped first
    /// (waiting for a checkpoint under way).
    ///
    /// For example:
    /// ```swift
    /// try coordinator.close()
    /// ```
    public func close() throws {
        checkpointer?.close()
        if let pool = database as? DatabasePool {
            _ = try? pool.writeWithoutTransaction { db in try db.checkpoint(.truncate) }  // busy elsewhere: the WAL stays valid
            try pool.close()
        }
        if let queue = database as? DatabaseQueue { try queue.close() }
    }
}

/// Per-connection setup shared by every coordinator (SQL functions used by predicates and derived attributes).
enum ConnectionSetup {
    static func prepare(_ db: Database) {
        PredicateFunctions.register(in: db)
        db.add(function: lowercase)
        db.add(function: uppercase)
    }

    /// `strata_lowercase(text)`, used by derived attributes (`lowercase:(title)`): Swift's
    /// Unicode `lowercased()`, where SQLite's `lower()` folds ASCII only.
    private static let lowercase = DatabaseFunction(DerivedColumns.lowercaseFunction, argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.lowercased()
    }

    /// `strata_uppercase(text)`, used by derived attributes (`uppercase:(title)`).
    private static let uppercase = DatabaseFunction(DerivedColumns.uppercaseFunction, argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0])?.uppercased()
    }
}

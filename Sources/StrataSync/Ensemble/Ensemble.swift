import Foundation
public import Strata

/// An ensemble: this peer's side of a store that several devices keep in sync through a
/// shared cloud folder, in the manner of Ensembles.
///
/// Each peer has its own Strata store (opened with `StoreOptions.recordsHistory`, so every
/// save is captured in its own transaction). ``attach()`` registers the peer and exports the
/// store's contents; ``sync()`` exports what was saved since, merges what other peers
/// uploaded, and saves the result to the store; ``detach()`` leaves. See docs/sync.md for
/// the merge rules and the file layout.
///
/// For example:
/// ```swift
/// let ensemble = try await Ensemble(identifier: "MainStore", coordinator: coordinator,
///                                   cloudFileSystem: LocalCloudFileSystem(rootDirectory: cloudURL),
///                                   globalIdentifiers: .attribute("uniqueIdentifier"))
/// try await ensemble.attach()
/// try await ensemble.sync()
/// ```
public actor Ensemble {
    /// The ensemble's name, the same on every peer (a safe cloud name).
    public nonisolated let identifier: String
    /// The store this peer syncs.
    public nonisolated let coordinator: StoreCoordinator
    /// Where the ensemble's files live.
    public nonisolated let cloudFileSystem: any CloudFileSystem
    /// How objects are named across peers.
    public nonisolated let globalIdentifiers: GlobalIdentifiers
    /// The settings.
    public nonisolated let options: EnsembleOptions

    let layout: EnsembleLayout
    let model: SyncModel
    /// The model version written in every file's header.
    let modelVersion: String
    let stateURL: URL
    /// Open while attached.
    var state: SyncState?
    /// The state file that could not be read at init, if any (reported as a forced detach).
    var unreadableState: SyncError?
    /// Set while an operation runs, so a second one waits its turn.
    private var running = false
    /// Whether the last sync succeeded, so the next one skips ``CloudFileSystem/connect()``
    /// (a request on a server): the identity read that follows fails just as well when the
    /// cloud is unreachable, and a missing identity connects before it detaches anyone.
    var cloudKnownReachable = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    let mergeObservers = MergeObservers()
    var activityContinuations: [UUID: AsyncStream<SyncActivity>.Continuation] = [:]
    var forcedDetachHandlers: [@Sendable (ForcedDetach) -> Void] = []
    /// Delivers merged change sets to a stack (``init(identifier:stack:cloudFileSystem:globalIdentifiers:options:)``).
    private var stackDelivery: Task<Void, Never>?

    func setStackDelivery(_ task: Task<Void, Never>) { stackDelivery = task }

    deinit { stackDelivery?.cancel() }

    /// Creates the ensemble for `coordinator`'s store; reads this peer's sync state if it
    /// attached before.
    ///
    /// - Throws: `storeNotSyncable` when the store does not record its history;
    ///   `unsafeName` for an identifier that is not a safe cloud name.
    public init(identifier: String, coordinator: StoreCoordinator, cloudFileSystem: any CloudFileSystem,
                globalIdentifiers: GlobalIdentifiers = .random, options: EnsembleOptions = EnsembleOptions()) async throws(SyncError) {
        guard coordinator.recordsHistory else {
            throw SyncError(.storeNotSyncable, "the store does not record its change history: open it with StoreOptions.recordsHistory = true")
        }
        guard case .sqlite(let storeURL, _) = coordinator.store else {
            throw SyncError(.storeNotSyncable, "only SQLite file stores can sync")
        }
        self.identifier = identifier
        self.coordinator = coordinator
        self.cloudFileSystem = cloudFileSystem
        self.globalIdentifiers = globalIdentifiers
        self.options = options
        layout = try EnsembleLayout(identifier: identifier)
        model = SyncModel(model: coordinator.model, identifierAttribute: globalIdentifiers.attributeName)
        modelVersion = String(coordinator.model.versionHash.prefix(ChangeFileHeader.maxModelVersionLength))
        let directory = options.localDirectory
            ?? storeURL.deletingLastPathComponent().appending(path: ".\(storeURL.lastPathComponent).sync", directoryHint: .isDirectory)
        stateURL = directory.appending(path: "\(identifier).sqlite")
        if FileManager.default.fileExists(atPath: stateURL.path) {
            do {
                let opened = try SyncState(url: stateURL)
                if try opened.read({ tx in try tx.meta("attached", as: Bool.self) }) == true { state = opened } else { try? opened.close() }
            } catch {
                // The next sync reports a forced detach; attach replaces the file.
                unreadableState = error
            }
        }
    }

    /// Whether this peer is attached.
    public var isAttached: Bool { state != nil }

    /// This peer's identifier in the ensemble (`nil` until attached).
    public var peerID: PeerID? {
        try? state?.read { tx in try tx.peer() }
    }

    // MARK: Observation

    /// Calls `handler` with the change set of every save a sync made to the store (on the
    /// saving context's queue). A stack whose main context is not a root context of the same
    /// coordinator merges it there; root contexts already hear of it as of any save.
    ///
    /// For example:
    /// ```swift
    /// let token = ensemble.observeMergedChanges { changes in
    ///     mainContext.perform { mainContext.merge(changes) }
    /// }
    /// ```
    public nonisolated func observeMergedChanges(_ handler: @escaping @Sendable (ChangeSet) -> Void) -> ChangeObservation {
        mergeObservers.add(handler)
    }

    /// The change sets of the syncs' saves, as an asynchronous sequence.
    ///
    /// For example:
    /// ```swift
    /// for await changes in ensemble.mergedChanges() { print(changes.inserted.count) }
    /// ```
    public nonisolated func mergedChanges() -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .unbounded)
        let token = mergeObservers.add { continuation.yield($0) }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Sync activity (operations beginning, their phases, their ends), from now on.
    ///
    /// For example:
    /// ```swift
    /// Task { for await activity in await ensemble.activity() { print(activity) } }
    /// ```
    public func activity() -> AsyncStream<SyncActivity> {
        let (stream, continuation) = AsyncStream<SyncActivity>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = UUID()
        activityContinuations[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeActivity(id) } }
        return stream
    }

    private func removeActivity(_ id: UUID) { activityContinuations[id] = nil }

    func report(_ activity: SyncActivity) {
        for continuation in activityContinuations.values { continuation.yield(activity) }
    }

    /// Calls `handler` when the ensemble detaches on its own (see ``ForcedDetach``).
    ///
    /// For example:
    /// ```swift
    /// await ensemble.onForcedDetach { detach in showAlert(detach.message) }
    /// ```
    public func onForcedDetach(_ handler: @escaping @Sendable (ForcedDetach) -> Void) {
        forcedDetachHandlers.append(handler)
    }

    // MARK: One operation at a time

    /// Runs `body` as `operation`, after any operation already running, with activity reports.
    func exclusive<T>(_ operation: SyncActivity.Operation, _ body: () async throws(SyncError) -> T) async throws(SyncError) -> T {
        while running { await withCheckedContinuation { waiting.append($0) } }
        running = true
        report(.began(operation))
        defer {
            running = false
            if !waiting.isEmpty { waiting.removeFirst().resume() }
        }
        do {
            let result = try await body()
            report(.ended(operation, error: nil))
            return result
        } catch {
            report(.ended(operation, error: error.description))
            throw error
        }
    }

    /// Runs a cloud call, turning any error that is not already a ``SyncError`` into one.
    func cloud<T>(_ body: () async throws -> T) async throws(SyncError) -> T {
        do { return try await body() } catch { throw Self.cloudError(error) }
    }

    /// A cloud file system's error as a ``SyncError`` (`backendFailure` unless it is one).
    static func cloudError(_ error: any Error) -> SyncError {
        error as? SyncError ?? SyncError(.backendFailure, "the cloud file system failed: \(error)", underlying: error)
    }

    func requireState() throws(SyncError) -> SyncState {
        if let unreadableState {
            self.unreadableState = nil
            throw forceDetach(.corruptLocalState, "the local sync state could not be read: \(unreadableState.message)")
        }
        guard let state else { throw SyncError(.notAttached, "the ensemble \(identifier) is not attached: call attach() first") }
        return state
    }
}

public import Foundation
public import Strata
public import StrataStacks

/// What a scenario gets for one run: a fresh stack on a fresh store (nil for variants that
/// use no stack), the source rows, the options, and helpers to save durably and report progress.
///
/// For example:
/// ```swift
/// let stack = try run.requireStack()
/// let importer = stack.newImportContext()
/// try await importer.perform { _ = importer.insert(Book.self); try importer.save() }
/// try await run.finishSave(of: importer)
/// ```
public final class ScenarioRun: Sendable {
    /// The stack, or nil for a variant that uses none.
    public let stack: (any CoreStack)?
    /// The store file of the stack (or a fresh file for stackless variants).
    public let storeURL: URL
    /// The model.
    public let model: ObjectModel
    /// The source rows (`--objects` books from `--seed`).
    public let data: SourceData
    /// Objects per save (`--batch`).
    public let batch: Int
    /// The variant being measured, if the scenario has several.
    public let variant: String?
    /// Where new store files go.
    public let scratch: ScratchDirectory
    /// Progress on standard error.
    public let log: ProgressLog
    /// A label for progress lines, e.g. `import/hybrid`.
    public let label: String
    /// How far the measured work is; the runner's progress timer reads it.
    public let progress: ProgressCounter
    /// Peers of the `sync` scenario (`--peers`).
    public let peers: Int
    /// How the run's hybrid stack brings import saves into main (`--merge-mode`).
    public let importMergeMode: ImportMergeMode
    /// The cloud of the `sync` scenario (`--backend`).
    public let syncBackend: SyncBackend
    /// The Sandbox executable, which runs the `sync` scenario's new device in a child process
    /// (``FirstSyncProbe``); nil: in this process.
    public let probeExecutable: URL?

    init(stack: (any CoreStack)?, storeURL: URL, model: ObjectModel, data: SourceData, batch: Int, variant: String?,
         scratch: ScratchDirectory, log: ProgressLog, label: String, progress: ProgressCounter = ProgressCounter(),
         peers: Int = 3, importMergeMode: ImportMergeMode = .everySave, syncBackend: SyncBackend = .local, probeExecutable: URL? = nil) {
        self.stack = stack
        self.storeURL = storeURL
        self.model = model
        self.data = data
        self.batch = batch
        self.variant = variant
        self.scratch = scratch
        self.log = log
        self.label = label
        self.progress = progress
        self.peers = peers
        self.importMergeMode = importMergeMode
        self.syncBackend = syncBackend
        self.probeExecutable = probeExecutable
    }

    /// Objects to handle (`--objects`).
    public var objects: Int { data.books.count }

    /// The stack, or an error for a variant declared without one.
    public func requireStack() throws -> any CoreStack {
        guard let stack else { throw SandboxError("\(label) needs a stack") }
        return stack
    }

    /// After `context` saved: when its save only reached main (a child of main), saves the
    /// stack so the work is on disk, as an app would. Returns whether the save went through main.
    @discardableResult
    public func finishSave(of context: ObjectContext) async throws -> Bool {
        guard context.parent != nil, let stack else { return false }
        try await stack.save()
        return true
    }

    /// Reports progress: `done` of `total` units (`what`, objects when empty). Cheap enough
    /// for every batch (two atomic stores); the runner samples it on a timer.
    public func step(_ done: Int, of total: Int, _ what: String = "") {
        progress.report(done, of: total, unit: what)
    }
}

public import Foundation
public import StrataStacks

/// What the Sandbox runs: which stacks and scenarios, on how many objects.
///
/// For example:
/// ```swift
/// var options = SandboxOptions()
/// options.objects = 200
/// options.scenarios = ["import"]
/// let records = try await SandboxRunner(options: options).run()
/// ```
public struct SandboxOptions: Sendable {
    /// The stacks to run each stack-using scenario on.
    public var stacks: [StackKind] = StackKind.allCases
    /// Scenario names, run in this order (the default run: the baselines, then import).
    public var scenarios: [String] = [BaselineScenario.name, ImportScenario.name]
    /// Books per run.
    public var objects = 100_000
    /// Objects per save (and the paging scenario's page size).
    public var batch = 1000
    /// Peers of the `sync` scenario (at least 2).
    public var peers = 3
    /// The cloud the `sync` scenario's peers share: a local folder, WebDAV or S3 on loopback.
    public var syncBackend: SyncBackend = .local
    /// The Sandbox executable: the `sync` scenario runs its new device's first sync in a
    /// child process of it, so that the figure is a device's memory, not the run's
    /// (``FirstSyncProbe``). `nil` (tests): in this process.
    public var probeExecutable: URL?
    /// Seed of the source data.
    public var seed: UInt64 = 1
    /// How the hybrid stack brings import saves into main.
    public var importMergeMode: ImportMergeMode = .everySave
    /// Progress on standard error: off (the default), plain lines, or a live line (a terminal).
    public var progress: ProgressLog.Style = .off
    /// A log to use instead of one made from ``progress`` (tests collect its text).
    public var progressLog: ProgressLog?
    /// Added to each run's progress label, e.g. `(repeat 2/3)`.
    public var progressSuffix: String?
    /// Where the runs' store files go. `nil` (the default): a temporary folder, removed with
    /// every store in it when ``SandboxRunner/run()`` returns. A folder given here is kept
    /// with its stores (each run's is ``RunRecord/storeURL``) so that tests can check what a
    /// scenario wrote with a connection of their own; the caller removes it.
    public var storeDirectory: URL?

    /// The default run.
    public init() {}
}

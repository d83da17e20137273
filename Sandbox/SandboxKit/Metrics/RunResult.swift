/// The measurements of one run (one scenario variant on one stack), as printed in the table
/// and, one JSON object per run, with `--json`.
///
/// For example:
/// ```swift
/// for result in results { print(result.stack, result.objectsPerSecond, result.stallMaxMs) }
/// ```
public struct RunResult: Sendable, Codable, Hashable {
    /// The stack (`mainContext`, `asyncSaving`, `hybrid`), or `none` for a run that uses no stack.
    public var stack: String
    /// The scenario's name.
    public var scenario: String
    /// The variant (`raw-sqlite`, `grdb-statement`, `batch-insert` for the baseline), or nil.
    public var variant: String?
    /// Objects the run wrote or handled (books for the imports).
    public var objects: Int
    /// Objects per save (`--batch`).
    public var batch: Int
    /// Wall-clock seconds of the measured work.
    public var wallSeconds: Double
    /// `objects / wallSeconds`.
    public var objectsPerSecond: Double
    /// The raw SQLite rate this run is compared with, measured in the same invocation on the
    /// same rows: the raw insert, or the variant's own raw counterpart (``ScenarioVariant/baseline``).
    public var rawObjectsPerSecond: Double
    /// `objectsPerSecond / rawObjectsPerSecond`.
    public var ratioToRaw: Double
    /// Main-queue time used by the main context(s) and the UI's fetched list, seconds.
    public var mainBusySeconds: Double
    /// `mainBusySeconds / wallSeconds`.
    public var mainBusyShare: Double
    /// Heartbeats recorded (one per ms while the main queue was free).
    public var heartbeats: Int
    /// Median heartbeat lateness, ms.
    public var stallP50Ms: Double
    /// 99th-percentile heartbeat lateness, ms.
    public var stallP99Ms: Double
    /// Largest heartbeat lateness, ms.
    public var stallMaxMs: Double
    /// Beats at least 16.7 ms late (a missed 60 Hz frame).
    public var stallsOver16Ms: Int
    /// Beats at least 100 ms late.
    public var stallsOver100Ms: Int
    /// Beats at least 250 ms late.
    public var stallsOver250Ms: Int
    /// Peak resident set size (VmHWM), bytes.
    public var peakRSSBytes: UInt64
    /// Resident set size when the run started (memory still held by earlier runs in this process), bytes.
    public var rssAtStartBytes: UInt64
    /// `run` when the peak was reset before this run, `process` when it covers the whole process.
    public var peakRSSScope: String
    /// Objects registered in the main context at the end (0 for runs without a stack).
    public var registeredInMain: Int
    /// Import change sets merged into main (the hybrid stack) plus child saves pushed through main.
    public var mergesIntoMain: Int
    /// Change sets main published (pushes, merges, its own saves): what the UI refetched after.
    public var mainChangeSets: Int
    /// SQLite write transactions run on the main queue.
    public var mainQueueWrites: Int
    /// `ok`, or what the scenario's behaviour check found wrong.
    public var check: String
    /// Scenario-specific findings, e.g. each merge policy's outcome.
    public var detail: String
    /// Scenario-specific counts (e.g. `rowsMaterialized`).
    public var counters: [String: Int]
}

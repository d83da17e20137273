/// What one ``Ensemble/sync()`` did.
///
/// For example:
/// ```swift
/// let report = try await ensemble.sync()
/// for skipped in report.skippedFiles { log("\(skipped.name): \(skipped.error)") }
/// ```
public struct SyncReport: Sendable {
    /// A cloud file the sync could not merge (it tries again on the next sync, unless the
    /// file is damaged for good).
    public struct SkippedFile: Sendable {
        /// The file's path in the cloud.
        public var path: String
        /// Why: `truncated`, `corruptFile`, `modelMismatch`, `fromTheFuture`, `tooLarge`, …
        public var error: SyncError
    }

    /// Records (object inserts and deletes, property values, members) exported from this store.
    public var exportedRecords = 0
    /// Event files merged from other peers.
    public var mergedFiles = 0
    /// Records in the merged files.
    public var mergedRecords = 0
    /// Whether a baseline was merged.
    public var mergedBaseline = false
    /// Objects inserted, updated or deleted in the store by the merge.
    public var objectsWritten = 0
    /// How many objects the merge's save inserted, updated and deleted (the change set
    /// itself goes to ``Ensemble/mergedChanges()``).
    public var changes = ChangeSetSummary()
    /// Files left for later.
    public var skippedFiles: [SkippedFile] = []
    /// Whether this sync wrote a baseline (and removed the files it replaces).
    public var wroteBaseline = false
    /// Directory listings made.
    public var listings = 0
}

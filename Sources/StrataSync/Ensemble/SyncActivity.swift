/// What an ensemble is doing, for a progress display: an operation begins, goes through its
/// phases, and ends (with its error, if it failed).
///
/// For example:
/// ```swift
/// for await activity in await ensemble.activity() {
///     if case .progress(_, let phase) = activity { status.text = phase.rawValue }
/// }
/// ```
public enum SyncActivity: Sendable, Hashable {
    /// An operation.
    public enum Operation: String, Sendable, Hashable {
        case attach, sync, detach
    }

    /// A step of an operation.
    public enum Phase: String, Sendable, Hashable {
        /// Reading what the store saved and writing it as an event file.
        case exporting
        /// Uploading event files.
        case uploading
        /// Downloading and merging a baseline.
        case mergingBaseline
        /// Downloading and merging event files.
        case mergingEvents
        /// Saving merged changes to the store.
        case savingToStore
        /// Writing a baseline and removing the files it replaces.
        case compacting
    }

    case began(Operation)
    case progress(Operation, Phase)
    /// `error` is the failure's description, `nil` on success.
    case ended(Operation, error: String?)
}

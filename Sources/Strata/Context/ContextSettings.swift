import Foundation

/// The settings of a context that may be changed from any thread.
///
/// Core Data documents the setters of a queue-based context as thread-safe: set-up code
/// configures a new private context (its merge policy, whether it merges automatically)
/// before its first `perform`. Strata keeps these settings behind a lock of their own, so
/// setting or reading them never needs the context's queue, while everything that touches
/// objects still does (and traps off the queue in debug mode).
struct ContextSettings: Sendable {
    /// How conflicts at save and local edits at merge are resolved.
    var mergePolicy: MergePolicy
    /// Whether the context merges what its parent (or, for a root, the coordinator) publishes.
    var automaticallyMergesChangesFromParent = false
    /// Recorded with each save in the store's history.
    var transactionAuthor: String?
    /// How old a cached row a fault may use (seconds; negative: any age, 0: none).
    var stalenessInterval: TimeInterval = -1
}

/// How many objects a sync's save inserted, updated and deleted in the store.
///
/// For example:
/// ```swift
/// let summary = try await ensemble.sync().changes
/// print(summary.inserted, summary.updated, summary.deleted)
/// ```
public struct ChangeSetSummary: Sendable, Hashable {
    /// Objects inserted.
    public var inserted = 0
    /// Objects updated.
    public var updated = 0
    /// Objects deleted.
    public var deleted = 0
}

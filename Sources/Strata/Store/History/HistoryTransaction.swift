public import Foundation

/// One transaction of a store's change history: a context's save or a batch request, with
/// the objects it changed.
///
/// For example:
/// ```swift
/// for transaction in try coordinator.history(after: nil) {
///     print(transaction.kind, transaction.author ?? "-", transaction.changes.count)
/// }
/// ```
public struct HistoryTransaction: Sendable {
    /// What wrote the transaction.
    public enum Kind: String, Sendable, Codable {
        /// A context's save.
        case save
        /// A ``BatchInsertRequest``.
        case batchInsert
        /// A ``BatchUpdateRequest``.
        case batchUpdate
        /// A ``BatchDeleteRequest``.
        case batchDelete
    }

    /// Where the transaction stands in the history.
    public let token: HistoryToken
    /// When it was written.
    public let timestamp: Date
    /// What wrote it.
    public let kind: Kind
    /// The saving context's ``ObjectContext/transactionAuthor``, if it had one.
    public let author: String?
    /// The saving context's name (`nil` for batch requests).
    public let contextName: String?
    /// The objects it changed, in the order they were written.
    public let changes: [HistoryChange]
}

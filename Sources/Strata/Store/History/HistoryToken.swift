/// A position in a store's change history: the transaction it names and everything before it.
/// Keep the token of the last transaction you processed and ask for what came after it.
///
/// For example:
/// ```swift
/// let transactions = try coordinator.history(after: lastToken)
/// lastToken = transactions.last?.token ?? lastToken
/// ```
public struct HistoryToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The transaction's row number in the history (increasing, never reused).
    public let rawValue: Int64

    /// A token for a stored raw value (e.g. one kept in `UserDefaults` or a file).
    public init(rawValue: Int64) { self.rawValue = rawValue }

    public static func < (lhs: HistoryToken, rhs: HistoryToken) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "HistoryToken(\(rawValue))" }
}

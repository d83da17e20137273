/// What an HTTP backend has sent and received so far: requests (every attempt and every
/// redirect hop counts), retries, and body bytes each way.
///
/// Read it before and after a sync to report requests per sync and bytes moved:
/// ```swift
/// let before = cloud.transferCounters
/// try await ensemble.sync()
/// let moved = cloud.transferCounters - before
/// print(moved.requests, moved.bytesSent + moved.bytesReceived)
/// ```
public struct HTTPTransferCounters: Sendable, Hashable, CustomStringConvertible {
    /// Requests sent, each attempt and each redirect hop included.
    public var requests = 0
    /// Attempts that repeated an earlier one after a failure.
    public var retries = 0
    /// Request body bytes sent.
    public var bytesSent = 0
    /// Response body bytes received.
    public var bytesReceived = 0

    /// Zero counters.
    public init() {}

    /// The counts between two readings.
    public static func - (lhs: HTTPTransferCounters, rhs: HTTPTransferCounters) -> HTTPTransferCounters {
        var result = HTTPTransferCounters()
        result.requests = lhs.requests - rhs.requests
        result.retries = lhs.retries - rhs.retries
        result.bytesSent = lhs.bytesSent - rhs.bytesSent
        result.bytesReceived = lhs.bytesReceived - rhs.bytesReceived
        return result
    }

    public var description: String {
        "\(requests) requests (\(retries) retries), \(bytesSent) bytes sent, \(bytesReceived) bytes received"
    }
}

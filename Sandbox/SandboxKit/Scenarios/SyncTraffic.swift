/// What a stretch of syncing cost the cloud: protocol calls, and for a server backend its
/// HTTP requests and bytes on the wire.
///
/// For example:
/// ```swift
/// let before = server.traffic
/// try await ensemble.sync()
/// print((server.traffic - before).requests)
/// ```
struct SyncTraffic: Sendable, Equatable {
    /// ``CloudFileSystem`` calls.
    var calls = 0
    /// Directory listings among them.
    var listings = 0
    /// HTTP requests (0 for a folder; see ``hasRequests``).
    var requests = 0
    /// Whether the backend counts HTTP requests (a server backend).
    var hasRequests = false
    /// Bytes uploaded and downloaded (file contents).
    var bytesUp = 0
    var bytesDown = 0

    static func - (lhs: SyncTraffic, rhs: SyncTraffic) -> SyncTraffic {
        SyncTraffic(calls: lhs.calls - rhs.calls, listings: lhs.listings - rhs.listings, requests: lhs.requests - rhs.requests,
                    hasRequests: lhs.hasRequests, bytesUp: lhs.bytesUp - rhs.bytesUp, bytesDown: lhs.bytesDown - rhs.bytesDown)
    }

    /// Each figure the larger of the two.
    func largest(_ other: SyncTraffic) -> SyncTraffic {
        SyncTraffic(calls: max(calls, other.calls), listings: max(listings, other.listings), requests: max(requests, other.requests),
                    hasRequests: hasRequests || other.hasRequests, bytesUp: max(bytesUp, other.bytesUp),
                    bytesDown: max(bytesDown, other.bytesDown))
    }
}

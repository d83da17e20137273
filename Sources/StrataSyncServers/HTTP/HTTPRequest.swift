import Foundation
import NIOHTTP1

/// One request as a backend describes it; ``HTTPTransport`` sends it (with retries,
/// redirects and credentials).
struct HTTPRequest: Sendable {
    /// `GET`, `PUT`, `PROPFIND`…
    var method: String
    var url: URL
    /// Headers besides credentials (an ``HTTPAuthorizer`` adds those on each hop).
    var headers = HTTPHeaders()
    var body: Data?
    /// The largest response body accepted (`SyncError/Code/tooLarge` above it).
    var maxResponseBytes = 16 << 20
    /// Whether the transport follows `3xx` answers itself; when false they are returned.
    var followsRedirects = true
    /// Statuses besides `2xx` returned to the caller as they are: neither retried nor mapped
    /// to an error (a WebDAV `405` on `MKCOL` means "exists").
    var passStatuses: Set<Int> = []
    /// Called before a retry after a retryable status (`5xx`, `429`); throwing stops the
    /// retries (a backend checks, say, that the parent folder exists).
    var beforeRetry: (@Sendable (Int) async throws -> Void)?
    /// The cloud path involved, for error messages.
    var cloudPath: String?

    init(_ method: String, _ url: URL, cloudPath: String? = nil) {
        self.method = method
        self.url = url
        self.cloudPath = cloudPath
    }
}

/// A whole response: status, headers, the body read into memory, and the URL that answered.
struct HTTPResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data
    /// The URL that gave this answer (after redirects).
    var url: URL
    /// How many attempts this took (1 when the first one succeeded).
    var attempts: Int
}

/// Adds credentials to requests and learns from a server's `401` challenge.
protocol HTTPAuthorizer: Sendable {
    /// Adds credentials to `request` (its URL is the one about to be sent). Called on every
    /// attempt, and only while the request stays on the origin (scheme, host, port) it began with.
    func authorize(_ request: inout HTTPRequest) async throws

    /// Whether a `401` answer taught something (a Digest challenge, a stale nonce) that makes
    /// sending the request once more worthwhile.
    func learn(from response: HTTPResponse) -> Bool
}

/// An HTTP status a backend did not expect, as the `underlying` error of a `SyncError`.
/// Holds no header and no credential.
struct HTTPStatusError: Error, Sendable, CustomStringConvertible {
    var status: Int
    var method: String
    /// The URL, without user information.
    var url: String

    var description: String { "HTTP \(status) for \(method) \(url)" }
}

/// How the HTTP backends send each request: its timeout, how often a failed one is tried
/// again and how long to wait in between, and how many redirects to follow.
///
/// A request is retried — at most ``maxAttempts`` times in all — after a network error, a
/// `5xx` (except `507`) or a `429`; the wait doubles from ``backoffBase`` up to
/// ``backoffCap``, with random jitter, and a server's `Retry-After` is honoured up to
/// ``retryAfterCap``. A `401` or `403` is never retried (`SyncError/Code/authenticationFailed`).
///
/// For example:
/// ```swift
/// var policy = HTTPRequestPolicy()
/// policy.timeout = .seconds(10)
/// policy.maxAttempts = 2
/// let cloud = WebDAVCloudFileSystem(baseURL: url, username: "alice", password: "secret", policy: policy)
/// ```
public struct HTTPRequestPolicy: Sendable, Hashable {
    /// The longest one attempt may take, from sending to the last byte of the answer.
    public var timeout: Duration
    /// How many times a request is sent at most (1 means no retry).
    public var maxAttempts: Int
    /// The wait before the first retry; each later retry waits twice as long (up to ``backoffCap``).
    public var backoffBase: Duration
    /// The longest wait between two attempts, before jitter.
    public var backoffCap: Duration
    /// The longest `Retry-After` honoured; a server asking for more gets this.
    public var retryAfterCap: Duration
    /// How many redirects one request follows before failing.
    public var maxRedirects: Int

    /// 30 s a request, 4 attempts, waits from 200 ms up to 5 s, `Retry-After` up to 30 s,
    /// 5 redirects.
    public static let standard = HTTPRequestPolicy()

    /// Creates a policy; counts below 1 and negative durations are raised to the smallest
    /// sensible value.
    ///
    /// ```swift
    /// let impatient = HTTPRequestPolicy(timeout: .seconds(5), maxAttempts: 1)
    /// ```
    public init(timeout: Duration = .seconds(30), maxAttempts: Int = 4, backoffBase: Duration = .milliseconds(200),
                backoffCap: Duration = .seconds(5), retryAfterCap: Duration = .seconds(30), maxRedirects: Int = 5) {
        self.timeout = max(timeout, .milliseconds(1))
        self.maxAttempts = max(1, maxAttempts)
        self.backoffBase = max(backoffBase, .zero)
        self.backoffCap = max(backoffCap, .zero)
        self.retryAfterCap = max(retryAfterCap, .zero)
        self.maxRedirects = max(0, maxRedirects)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }
}

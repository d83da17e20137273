import Foundation

/// Which statuses are retried, and the `SyncError` every other failing status becomes.
enum HTTPStatusMapping {
    /// `408`, `425`, `429` and every `5xx` except `501` (not implemented), `505` and `507`
    /// (insufficient storage): a later attempt may succeed.
    static func isRetryable(_ status: Int) -> Bool {
        switch status {
        case 408, 425, 429: true
        case 501, 505, 507: false
        case 500..<600: true
        default: false
        }
    }

    /// The typed error for `status`:
    /// - `401`, `403`: `SyncError/Code/authenticationFailed` (never retried);
    /// - `404`, `410`: `SyncError/Code/notFound`;
    /// - `409`: `SyncError/Code/notFound` — in WebDAV, a parent collection is missing;
    /// - `405`: `SyncError/Code/typeMismatch` — in WebDAV, the method does not apply to
    ///   this kind of resource (a collection where a file is expected, or the reverse);
    /// - `413`: `SyncError/Code/tooLarge`;
    /// - anything else (`412`, `423`, `507`, other `4xx` and `5xx`): `SyncError/Code/backendFailure`.
    static func error(for status: Int, method: String, url: URL, path: String?) -> SyncError {
        let cause = HTTPStatusError(status: status, method: method, url: HTTPOrigin.redacted(url))
        let code: SyncError.Code
        let message: String
        switch status {
        case 401, 403:
            code = .authenticationFailed
            message = "the server refused the credentials (HTTP \(status)); check the user name and password"
        case 404, 410:
            code = .notFound
            message = "no such item on the server (HTTP \(status))"
        case 409:
            code = .notFound
            message = "a parent folder is missing on the server (HTTP 409 Conflict)"
        case 405:
            code = .typeMismatch
            message = "the server does not allow \(method) on this item (HTTP 405): a folder where a file was expected, or the reverse"
        case 413:
            code = .tooLarge
            message = "the server refused the size of the upload (HTTP 413)"
        case 507:
            code = .backendFailure
            message = "the server is out of storage (HTTP 507)"
        default:
            code = .backendFailure
            message = "the server answered \(method) with HTTP \(status)"
        }
        return SyncError(code, message, path: path, underlying: cause)
    }
}

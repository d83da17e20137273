import Foundation

/// An error answer of an S3-compatible server: the HTTP status and, when the body holds one,
/// the `<Error>` document's `Code`, `Message` and `RequestId`. It is the `underlying` error of
/// the `SyncError` a call throws; ``syncError(path:)`` maps it to a typed code.
///
/// For example:
/// ```swift
/// catch let error as SyncError {
///     if let s3 = error.underlying as? S3ServiceError { print(s3.code ?? "-", s3.status) }
/// }
/// ```
public struct S3ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status of the answer.
    public var status: Int
    /// S3's error code (`NoSuchKey`, `AccessDenied`, `SlowDown`, …), when the body said one.
    public var code: String?
    /// The server's message, when the body gave one (it never holds the secret key).
    public var message: String?
    /// The server's request identifier, for its logs.
    public var requestID: String?

    /// An error with these parts.
    ///
    /// ```swift
    /// let error = S3ServiceError(status: 404, code: "NoSuchKey")
    /// ```
    public init(status: Int, code: String? = nil, message: String? = nil, requestID: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.requestID = requestID
    }

    /// Reads an error answer: the status, and the `<Error>` document of `body` if it holds one
    /// (an empty or non-XML body, as a `HEAD` answer has, leaves the code `nil`).
    init(status: Int, body: Data) {
        self.init(status: status)
        guard !body.isEmpty, let root = try? S3XMLElement.parse(body, what: "error answer") else { return }
        let error = root.first("Error") ?? root
        code = error.child("Code")?.trimmedText
        message = error.child("Message")?.trimmedText
        requestID = (error.child("RequestId") ?? root.first("RequestId"))?.trimmedText
    }

    /// Codes that name a refused credential or signature.
    static let authenticationCodes: Set<String> = [
        "AccessDenied", "SignatureDoesNotMatch", "InvalidAccessKeyId", "InvalidToken", "ExpiredToken",
        "InvalidSecurity", "AuthorizationHeaderMalformed", "RequestTimeTooSkewed", "AllAccessDisabled",
    ]

    /// Codes a server answers when it is busy or failing for a moment: worth a retry.
    static let transientCodes: Set<String> = [
        "SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout",
    ]

    /// Whether a retry may succeed: 5xx, 429, or a transient code such as `SlowDown`.
    public var isRetryable: Bool {
        if let code, Self.transientCodes.contains(code) { return true }
        return status >= 500 || status == 429
    }

    /// The typed error for this answer:
    ///
    /// | S3 code / status | `SyncError/Code` |
    /// |---|---|
    /// | `NoSuchKey`, 404 without a code | `notFound` |
    /// | `NoSuchBucket` | `notConnected` |
    /// | `AccessDenied`, `SignatureDoesNotMatch`, `InvalidAccessKeyId`, …, 401, 403 | `authenticationFailed` |
    /// | anything else (`SlowDown` and 5xx after the retries) | `backendFailure` |
    public func syncError(path: String? = nil) -> SyncError {
        if code == "NoSuchBucket" {
            return SyncError(.notConnected, "the bucket does not exist (S3 \(summary))", path: path, underlying: self)
        }
        if code == "NoSuchKey" || (code == nil && status == 404) {
            return SyncError(.notFound, "no such object (S3 \(summary))", path: path, underlying: self)
        }
        if let code, Self.authenticationCodes.contains(code) {
            return SyncError(.authenticationFailed, "the server refused the credentials (S3 \(summary))", path: path, underlying: self)
        }
        if status == 401 || status == 403 {
            return SyncError(.authenticationFailed, "the server refused the credentials (S3 \(summary))", path: path, underlying: self)
        }
        return SyncError(.backendFailure, "the server answered S3 \(summary)", path: path, underlying: self)
    }

    /// `403 SignatureDoesNotMatch: message`.
    var summary: String {
        var text = "\(status)"
        if let code { text += " \(code)" }
        if let message, !message.isEmpty { text += ": \(message)" }
        return text
    }

    public var description: String { "S3ServiceError(\(summary))" }
}

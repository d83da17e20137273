/// An access key pair for an S3-compatible store.
///
/// The secret never appears in a description, a log line or an error message: printing the
/// credentials shows the access key ID only.
///
/// For example:
/// ```swift
/// let keys = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: secret)
/// print(keys)   // S3Credentials(accessKeyID: AKIAIOSFODNN7EXAMPLE, secret: <redacted>)
/// ```
public struct S3Credentials: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The public half, sent with every request.
    public var accessKeyID: String
    /// The secret half, used only to derive signing keys; never sent or printed.
    public var secretAccessKey: String

    /// Creates a key pair.
    ///
    /// ```swift
    /// let keys = S3Credentials(accessKeyID: "minioadmin", secretAccessKey: "minioadmin")
    /// ```
    public init(accessKeyID: String, secretAccessKey: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
    }

    public var description: String { "S3Credentials(accessKeyID: \(accessKeyID), secret: <redacted>)" }
    public var debugDescription: String { description }
}

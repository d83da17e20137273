/// The one error type StrataSync throws.
///
/// A `SyncError` carries an extensible ``Code`` (new codes never break a `switch` written
/// against older ones), a message, the cloud path involved and the underlying error, if any.
/// Anything that comes from the cloud and is not as expected — a hostile name, a file too
/// large, a truncated or damaged change file, a file written by a newer version — is
/// reported with one of these codes, never by a crash.
///
/// For example:
/// ```swift
/// do { _ = try await cloud.download(from: path) }
/// catch let error as SyncError where error.code == .tooLarge {
///     print("skipping \(error.path ?? "?"): \(error.message)")
/// }
/// ```
public struct SyncError: Error, CustomStringConvertible, Sendable {
    /// What kind of failure this is. Compare with `==`; the set of codes grows over time.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The backend could not be reached or is not set up (`connect()` failed, the root
        /// folder is missing).
        public static let notConnected = Code(rawValue: "notConnected")
        /// The file or directory does not exist.
        public static let notFound = Code(rawValue: "notFound")
        /// A name, path or identifier failed validation (`..`, a separator or control
        /// character inside a name, too long, a symbolic link leading outside the root).
        public static let unsafeName = Code(rawValue: "unsafeName")
        /// A safe name that is not a change-file name (another program's file).
        public static let unrecognizedName = Code(rawValue: "unrecognizedName")
        /// A file is larger than the configured ``CloudLimits/maxFileSize``.
        public static let tooLarge = Code(rawValue: "tooLarge")
        /// A directory holds more entries than ``CloudLimits/maxListingCount``.
        public static let listingTooLong = Code(rawValue: "listingTooLong")
        /// A file was found where a directory was expected, or the reverse.
        public static let typeMismatch = Code(rawValue: "typeMismatch")
        /// A change file ends early (a partial upload, or a file still arriving): retry later.
        public static let truncated = Code(rawValue: "truncated")
        /// A change file is not one (wrong magic) or its checksums do not match.
        public static let corruptFile = Code(rawValue: "corruptFile")
        /// A change file's format version is one this build never knew (for example 0).
        public static let unknownFormatVersion = Code(rawValue: "unknownFormatVersion")
        /// A change file was written by a newer StrataSync (a higher format version).
        public static let fromTheFuture = Code(rawValue: "fromTheFuture")
        /// A change file was written with a model version this peer does not accept.
        public static let modelMismatch = Code(rawValue: "modelMismatch")
        /// The server refused the credentials (HTTP 401 or 403, an S3 signature it does not
        /// accept). Not retried: fix the user name, password or keys and sync again.
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// An encrypted cloud was opened with another password than the one it was sealed
        /// with; found on the first file read, before anything is merged.
        public static let wrongPassword = Code(rawValue: "wrongPassword")
        /// The backend failed (I/O error, network error, HTTP status): see ``underlying``.
        public static let backendFailure = Code(rawValue: "backendFailure")
        /// This peer's local sync state is damaged or from a later version: the ensemble
        /// detaches; attach again (the store keeps its data and is merged anew).
        public static let corruptState = Code(rawValue: "corruptState")
        /// The ensemble is not attached: call ``Ensemble/attach()`` first.
        public static let notAttached = Code(rawValue: "notAttached")
        /// The store cannot take part: it does not record its change history, or its model
        /// has no entity the ensemble can sync.
        public static let storeNotSyncable = Code(rawValue: "storeNotSyncable")
        /// The ensemble was detached by force (see ``ForcedDetach``): the cloud's identity
        /// changed or this peer's registration is gone. Attach again.
        public static let forcedDetach = Code(rawValue: "forcedDetach")
        /// Merged changes could not be saved to the store (a validation or uniqueness rule of
        /// the model rejected the merged objects); the store is unchanged and the next sync
        /// tries again. `underlying` holds the store's error.
        public static let mergeFailed = Code(rawValue: "mergeFailed")
        /// The store's own operation failed (reading its history, saving); `underlying` holds
        /// the `StrataError`.
        public static let storeFailure = Code(rawValue: "storeFailure")
    }

    /// The kind of failure.
    public var code: Code
    /// What went wrong, in words.
    public var message: String
    /// The cloud path involved, if any (as the raw string, since it may be the unsafe part).
    public var path: String?
    /// The error that caused this one, if any (an `errno`, an HTTP error, an injected fault).
    public var underlying: (any Error & Sendable)?

    /// Creates an error. StrataSync and backends create these.
    ///
    /// ```swift
    /// throw SyncError(.notFound, "no such file", path: path.rawValue)
    /// ```
    public init(_ code: Code, _ message: String, path: String? = nil, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.path = path
        self.underlying = underlying
    }

    public var description: String {
        var parts = ["SyncError.\(code): \(message)"]
        if let path { parts.append("path: \(path.debugDescription)") }
        if let underlying { parts.append("cause: \(underlying)") }
        return parts.joined(separator: "; ")
    }
}

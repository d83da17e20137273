/// Caps on what a cloud may hand a peer, so nothing from the cloud can exhaust memory or disk.
///
/// A backend checks a file's size before downloading it where it can (a local `stat`, an
/// HTTP `Content-Length`, an S3 object's size) and stops reading past the cap where it
/// cannot; a listing longer than ``maxListingCount`` fails instead of growing without end.
///
/// For example:
/// ```swift
/// let cloud = LocalCloudFileSystem(rootDirectory: url, limits: CloudLimits(maxFileSize: 8 << 20))
/// ```
public struct CloudLimits: Sendable, Hashable {
    /// The largest file uploaded or downloaded, in bytes (``SyncError/Code/tooLarge`` above it).
    public var maxFileSize: Int
    /// The most entries one directory listing may return (``SyncError/Code/listingTooLong``).
    public var maxListingCount: Int

    /// 256 MiB files and 100 000 entries a listing.
    public static let standard = CloudLimits()

    /// Creates limits; both must be positive.
    ///
    /// ```swift
    /// let small = CloudLimits(maxFileSize: 1 << 20, maxListingCount: 1_000)
    /// ```
    public init(maxFileSize: Int = 256 << 20, maxListingCount: Int = 100_000) {
        self.maxFileSize = max(1, maxFileSize)
        self.maxListingCount = max(1, maxListingCount)
    }
}

public import Foundation

/// A dumb shared file store that peers exchange change files through: a folder, a WebDAV
/// server, an S3-compatible bucket.
///
/// The requirements are the primitives every such store has; anything built on them lives in
/// an extension. The contract, which each backend keeps:
///
/// - **Paths** are ``CloudPath``s: relative, `/`-separated, validated names. The backend maps
///   them to its own addresses (a file URL under a root, a WebDAV URL, an S3 key) and never
///   lets one reach outside its root.
/// - **Uploads are whole-object writes.** A reader sees the old file, no file, or the whole
///   new one — never half. A backend that can move writes under a temporary name and moves it
///   into place (a folder, WebDAV `MOVE`); one that cannot relies on the store's atomic put
///   (S3 `PutObject`). No rename is ever asked of a backend, so change files are immutable and
///   named once.
/// - **Idempotent where it can be**: creating an existing directory and removing a missing
///   item succeed; `createDirectory` creates missing parents (for S3, directories may be
///   implicit: it may do nothing).
/// - **Limits**: downloads above ``limits``' `maxFileSize` and listings above its
///   `maxListingCount` throw (``SyncError/Code/tooLarge``, ``SyncError/Code/listingTooLong``),
///   checked before the bytes are fetched where the store can tell.
/// - **Errors** are ``SyncError``s; I/O and network failures are ``SyncError/Code/backendFailure``
///   with the cause in `underlying`, a missing item is ``SyncError/Code/notFound``.
/// - **Listings** leave out entries whose names are not safe ``CloudName``s and the backend's
///   own temporary names; they may lag writes (a store that is only eventually consistent), so
///   callers never assume a file they just wrote is listed.
///
/// For example:
/// ```swift
/// let cloud: any CloudFileSystem = LocalCloudFileSystem(rootDirectory: folder)
/// try await cloud.connect()
/// let events = try CloudPath("MainStore/events")
/// try await cloud.createDirectory(at: events)
/// try await cloud.upload(Data("hello".utf8), to: try events.appending("greeting"))
/// print(try await cloud.contentsOfDirectory(at: events).map(\.name))
/// ```
public protocol CloudFileSystem: Sendable {
    /// The caps this backend enforces.
    var limits: CloudLimits { get }

    /// Checks the store is reachable and set up (the root folder exists, the credentials work).
    /// Call it before a sync; it may be called again at any time.
    func connect() async throws

    /// Whether an item exists at `path`, and whether it is a directory.
    ///
    /// ```swift
    /// let (exists, isDirectory) = try await cloud.fileExists(at: path)
    /// ```
    func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool)

    /// The entries of the directory at `path`, in no guaranteed order.
    /// Throws ``SyncError/Code/notFound`` when it does not exist.
    func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem]

    /// Creates the directory at `path` and any missing parents; succeeds if it exists.
    /// Throws ``SyncError/Code/typeMismatch`` when a file is in the way.
    func createDirectory(at path: CloudPath) async throws

    /// Writes `data` as the whole file at `path`, replacing any file there. The parent
    /// directory must exist.
    func upload(_ data: Data, to path: CloudPath) async throws

    /// Writes the local file at `localURL` as the whole file at `path`.
    /// The default reads the file into memory (refusing one above `maxFileSize`) and calls
    /// ``upload(_:to:)``; a backend that can stream overrides it.
    func uploadLocalFile(at localURL: URL, to path: CloudPath) async throws

    /// The whole file at `path`. Throws ``SyncError/Code/notFound``, or
    /// ``SyncError/Code/tooLarge`` when it is above `maxFileSize`.
    func download(from path: CloudPath) async throws -> Data

    /// Writes the file at `path` to the local file `localURL` (replacing it).
    /// The default calls ``download(from:)`` and writes atomically; a backend that can stream
    /// overrides it.
    func download(from path: CloudPath, toLocalFile localURL: URL) async throws

    /// Removes the file or directory (with its contents) at `path`; succeeds if it is missing.
    /// Removing the root is refused (``SyncError/Code/unsafeName``).
    func removeItem(at path: CloudPath) async throws
}

extension CloudFileSystem {
    public func uploadLocalFile(at localURL: URL, to path: CloudPath) async throws {
        let size: Int
        do {
            let values = try localURL.resourceValues(forKeys: [.fileSizeKey, .isDirectoryKey])
            if values.isDirectory == true {
                throw SyncError(.typeMismatch, "the local item to upload is a directory", path: path.rawValue)
            }
            size = values.fileSize ?? 0
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.notFound, "cannot read the local file \(localURL.path)", path: path.rawValue, underlying: error)
        }
        if size > limits.maxFileSize {
            throw SyncError(.tooLarge, "the local file has \(size) bytes, above the limit of \(limits.maxFileSize)", path: path.rawValue)
        }
        let data: Data
        do { data = try Data(contentsOf: localURL) } catch {
            throw SyncError(.backendFailure, "cannot read the local file \(localURL.path)", path: path.rawValue, underlying: error)
        }
        if data.count > limits.maxFileSize {
            throw SyncError(.tooLarge, "the local file grew above the limit of \(limits.maxFileSize)", path: path.rawValue)
        }
        try await upload(data, to: path)
    }

    public func download(from path: CloudPath, toLocalFile localURL: URL) async throws {
        let data = try await download(from: path)
        do { try data.write(to: localURL, options: .atomic) } catch {
            throw SyncError(.backendFailure, "cannot write the local file \(localURL.path)", path: path.rawValue, underlying: error)
        }
    }
}

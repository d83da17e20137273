public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cloud file system that is a local folder: a shared disk, a network mount, or a folder
/// that a sync client (Dropbox, Nextcloud, Syncthing) copies between machines.
///
/// Uploads are written under a temporary name (`.strata-upload-…`, never listed) in the
/// destination's directory, flushed, then renamed into place, so a reader — another process,
/// or the sync client — never sees half a file. Every path is made of validated
/// ``CloudName``s, and every existing item a call touches is resolved and checked to lie
/// inside the root, so a symbolic link planted in the folder cannot lead a peer outside it
/// (``SyncError/Code/unsafeName``). Listings leave out entries whose names are unsafe or not
/// valid UTF-8, and links that lead outside.
///
/// The calls do blocking file I/O on the caller's task.
///
/// For example:
/// ```swift
/// let cloud = LocalCloudFileSystem(rootDirectory: URL(filePath: "/mnt/shared/strata"))
/// try await cloud.connect()     // throws SyncError.notConnected if the folder is missing
/// ```
public struct LocalCloudFileSystem: CloudFileSystem {
    /// The folder every path is relative to.
    public let rootDirectory: URL
    /// The caps this folder enforces on uploads, downloads and listings.
    public let limits: CloudLimits

    /// The prefix of the temporary names uploads are written under; listings skip them.
    public static let temporaryPrefix = ".strata-upload-"

    /// A cloud file system rooted at `rootDirectory`, which must exist when it is used.
    ///
    /// ```swift
    /// let cloud = LocalCloudFileSystem(rootDirectory: folder, limits: CloudLimits(maxFileSize: 64 << 20))
    /// ```
    public init(rootDirectory: URL, limits: CloudLimits = .standard) {
        self.rootDirectory = rootDirectory
        self.limits = limits
    }

    public func connect() async throws {
        _ = try resolvedRoot()
    }

    public func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) {
        let location = try resolve(path)
        guard let resolved = location.resolved else { return (false, false) }
        guard let status = Self.status(resolved, followingLinks: true) else { return (false, false) }
        return (true, status.isDirectory)
    }

    public func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] {
        let location = try resolve(path)
        guard let directory = location.resolved else {
            throw SyncError(.notFound, "no such directory", path: path.rawValue)
        }
        return try listDirectory(directory, root: location.root, path: path)
    }

    public func createDirectory(at path: CloudPath) async throws {
        var current = CloudPath.root
        for name in path.names {
            current = try current.appending(name)
            let location = try resolve(current)
            if let resolved = location.resolved {
                if Self.status(resolved, followingLinks: true)?.isDirectory != true {
                    throw SyncError(.typeMismatch, "a file is in the way of a directory", path: current.rawValue)
                }
                continue
            }
            if mkdir(location.target, 0o755) != 0 && errno != EEXIST {
                throw Self.failure("cannot create the directory", current, errno: errno)
            }
        }
    }

    public func upload(_ data: Data, to path: CloudPath) async throws {
        guard let parent = path.parent, let name = path.lastName else {
            throw SyncError(.unsafeName, "cannot upload to the root", path: path.rawValue)
        }
        if data.count > limits.maxFileSize {
            throw SyncError(.tooLarge, "\(data.count) bytes is above the limit of \(limits.maxFileSize)", path: path.rawValue)
        }
        // Resolving the whole path refuses a link at the target that leads outside (the rename
        // would replace the link, not write through it, but such a link is refused everywhere).
        _ = try resolve(path)
        let parentLocation = try resolve(parent)
        guard let directory = parentLocation.resolved,
              Self.status(directory, followingLinks: true)?.isDirectory == true else {
            throw SyncError(.notFound, "the parent directory does not exist", path: path.rawValue)
        }
        let target = directory + "/" + name.rawValue
        if let existing = Self.status(target, followingLinks: false), existing.isDirectory {
            throw SyncError(.typeMismatch, "a directory is in the way of the file", path: path.rawValue)
        }
        let temporary = directory + "/" + Self.temporaryPrefix + UUID().uuidString
        do {
            try Self.writeNewFile(temporary, data)
        } catch {
            unlink(temporary)
            throw Self.failure("cannot write the temporary upload", path, errno: error.errno)
        }
        if rename(temporary, target) != 0 {
            let code = errno
            unlink(temporary)
            throw Self.failure("cannot move the upload into place", path, errno: code)
        }
    }

    public func download(from path: CloudPath) async throws -> Data {
        let location = try resolve(path)
        guard let resolved = location.resolved else {
            throw SyncError(.notFound, "no such file", path: path.rawValue)
        }
        return try Self.readFile(resolved, limit: limits.maxFileSize, path: path)
    }

    public func removeItem(at path: CloudPath) async throws {
        guard let parent = path.parent else {
            throw SyncError(.unsafeName, "cannot remove the root", path: path.rawValue)
        }
        // The parent must lie inside the root; the item itself may be a link (removing a
        // link never touches its target).
        let parentLocation = try resolve(parent)
        guard let directory = parentLocation.resolved, let name = path.lastName else { return }
        let target = directory + "/" + name.rawValue
        guard let status = Self.status(target, followingLinks: false) else { return }
        if status.isDirectory {
            do { try FileManager.default.removeItem(atPath: target) } catch {
                if Self.status(target, followingLinks: false) == nil { return }
                throw SyncError(.backendFailure, "cannot remove the directory", path: path.rawValue, underlying: error)
            }
        } else if unlink(target) != 0 && errno != ENOENT {
            throw Self.failure("cannot remove the file", path, errno: errno)
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Path resolution and file I/O for ``LocalCloudFileSystem``, on POSIX calls so that
/// listings stream (a huge directory is refused without being held in memory), names that
/// are not UTF-8 are seen as such, and links are never followed unchecked.
extension LocalCloudFileSystem {
    /// Where a cloud path lands on disk.
    struct Location {
        /// The root, with its links resolved.
        var root: String
        /// The resolved deepest existing ancestor followed by the missing names; the item itself
        /// (resolved) when it exists.
        var target: String
        /// Whether the item exists.
        var exists: Bool
        /// The resolved item, when it exists.
        var resolved: String? { exists ? target : nil }
    }

    /// What `stat` says about an item.
    struct Status: Equatable {
        var isDirectory: Bool
        var isLink: Bool
        var size: Int
    }

    /// An `errno` carried out of a helper.
    struct Errno: Error { var errno: Int32 }

    /// The root with its links resolved; it must be an existing directory.
    func resolvedRoot() throws(SyncError) -> String {
        let path = rootDirectory.path(percentEncoded: false)
        guard let real = Self.realPath(path), Self.status(real, followingLinks: true)?.isDirectory == true else {
            throw SyncError(.notConnected, "the root folder \(path) does not exist or is not a directory")
        }
        return real
    }

    /// Resolves `path` under the root, refusing anything that leads outside it.
    func resolve(_ path: CloudPath) throws(SyncError) -> Location {
        let root = try resolvedRoot()
        var existing = root
        var index = 0
        while index < path.names.count {
            let next = existing + "/" + path.names[index].rawValue
            guard let status = Self.status(next, followingLinks: false) else { break }
            guard let real = Self.realPath(next) else {
                throw SyncError(.unsafeName, "a symbolic link leads nowhere", path: path.rawValue)
            }
            guard Self.isInside(real, root: root) else {
                throw SyncError(.unsafeName, "a symbolic link leads outside the root", path: path.rawValue)
            }
            // A file where a directory should be: nothing exists below it.
            if index < path.names.count - 1, !status.isDirectory, Self.status(real, followingLinks: true)?.isDirectory != true {
                break
            }
            existing = real
            index += 1
        }
        let missing = path.names[index...].map(\.rawValue)
        let target = missing.isEmpty ? existing : existing + "/" + missing.joined(separator: "/")
        return Location(root: root, target: target, exists: missing.isEmpty)
    }

    /// The entries of a resolved directory, refusing listings above the limit.
    func listDirectory(_ directory: String, root: String, path: CloudPath) throws(SyncError) -> [CloudItem] {
        guard let stream = opendir(directory) else {
            let code = errno
            if code == ENOENT { throw SyncError(.notFound, "no such directory", path: path.rawValue) }
            if code == ENOTDIR { throw SyncError(.typeMismatch, "not a directory", path: path.rawValue) }
            throw Self.failure("cannot list the directory", path, errno: code)
        }
        defer { closedir(stream) }
        var items: [CloudItem] = []
        var count = 0
        while let entry = readdir(stream) {
            let raw = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                    String(validatingCString: $0)
                }
            }
            if raw == "." || raw == ".." { continue }
            if let raw, raw.hasPrefix(Self.temporaryPrefix) { continue }
            count += 1
            if count > limits.maxListingCount {
                throw SyncError(.listingTooLong, "the directory holds more than \(limits.maxListingCount) entries", path: path.rawValue)
            }
            guard let raw, let name = try? CloudName(raw) else { continue }
            let full = directory + "/" + raw
            guard var status = Self.status(full, followingLinks: false) else { continue }
            if status.isLink {
                guard let real = Self.realPath(full), Self.isInside(real, root: root),
                      let target = Self.status(real, followingLinks: true) else { continue }
                status = target
            }
            items.append(CloudItem(name: name, size: status.isDirectory ? 0 : status.size, isDirectory: status.isDirectory))
        }
        return items
    }

    /// `lstat` or `stat`; `nil` when the item does not exist.
    static func status(_ path: String, followingLinks: Bool) -> Status? {
        var info = stat()
        let result = followingLinks ? stat(path, &info) : lstat(path, &info)
        guard result == 0 else { return nil }
        let kind = info.st_mode & S_IFMT
        return Status(isDirectory: kind == S_IFDIR, isLink: kind == S_IFLNK, size: Int(info.st_size))
    }

    static func realPath(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(validatingCString: pointer)
    }

    static func isInside(_ path: String, root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// Creates `path` (which must not exist), writes `data`, flushes it to disk.
    static func writeNewFile(_ path: String, _ data: Data) throws(Errno) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard descriptor >= 0 else { throw Errno(errno: errno) }
        defer { close(descriptor) }
        let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += written
            }
            return nil
        }
        if let failure { throw Errno(errno: failure) }
        if fsync(descriptor) != 0 { throw Errno(errno: errno) }
    }

    /// Reads a whole file, refusing one above `limit` before reading it and stopping if it
    /// grows past the limit while being read.
    static func readFile(_ file: String, limit: Int, path: CloudPath) throws(SyncError) -> Data {
        let descriptor = open(file, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT { throw SyncError(.notFound, "no such file", path: path.rawValue) }
            throw failure("cannot open the file", path, errno: code)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw failure("cannot stat the file", path, errno: errno) }
        if info.st_mode & S_IFMT == S_IFDIR { throw SyncError(.typeMismatch, "a directory, not a file", path: path.rawValue) }
        let size = Int(info.st_size)
        if size > limit {
            throw SyncError(.tooLarge, "the file has \(size) bytes, above the limit of \(limit)", path: path.rawValue)
        }
        var data = Data()
        data.reserveCapacity(size)
        let chunk = 1 << 16
        var buffer = [UInt8](repeating: 0, count: chunk)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, chunk) }
            if count < 0 {
                if errno == EINTR { continue }
                throw failure("cannot read the file", path, errno: errno)
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[0..<count])
            if data.count > limit {
                throw SyncError(.tooLarge, "the file grew above the limit of \(limit) while being read", path: path.rawValue)
            }
        }
        return data
    }

    static func failure(_ message: String, _ path: CloudPath, errno code: Int32) -> SyncError {
        let cause = POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        if code == ENOENT { return SyncError(.notFound, message, path: path.rawValue, underlying: cause) }
        return SyncError(.backendFailure, message, path: path.rawValue, underlying: cause)
    }
}

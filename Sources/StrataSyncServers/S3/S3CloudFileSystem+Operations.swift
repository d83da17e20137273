public import Foundation

extension S3CloudFileSystem {
    /// A file when `HeadObject` finds the key; else a directory when a one-key listing of
    /// `key/` finds anything (its marker or a key below it).
    public func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) {
        let client = try client
        if path.isRoot { return (true, true) }
        if try await client.headObject(key: client.address.key(for: path), cloudPath: path.rawValue) != nil {
            return (true, false)
        }
        let isDirectory = try await client.hasObjects(under: client.address.directoryPrefix(for: path), cloudPath: path.rawValue)
        return (isDirectory, isDirectory)
    }

    /// `ListObjectsV2` of `key/` with the `/` delimiter, page by page; markers are not entries,
    /// keys no `CloudName` can hold are left out. An empty answer without a marker is
    /// `SyncError/Code/notFound` (or `SyncError/Code/typeMismatch` when a file has the key).
    public func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] {
        let client = try client
        let prefix = client.address.directoryPrefix(for: path)
        var items: [CloudItem] = []
        var sawMarker = false
        var token: String?
        repeat {
            let page = try await client.listPage(prefix: prefix, delimiter: "/", continuationToken: token,
                                                 maxKeys: pageSize, cloudPath: path.rawValue)
            for object in page.objects {
                guard object.key.hasPrefix(prefix) else { continue }
                let name = String(object.key.dropFirst(prefix.count))
                if name.isEmpty { sawMarker = true; continue }
                guard let cloudName = try? CloudName(name) else { continue }
                items.append(CloudItem(name: cloudName, size: object.size, isDirectory: false))
            }
            for common in page.commonPrefixes {
                guard common.hasPrefix(prefix), common.hasSuffix("/") else { continue }
                let name = String(common.dropFirst(prefix.count).dropLast())
                guard let cloudName = try? CloudName(name) else { continue }
                items.append(CloudItem(name: cloudName, size: 0, isDirectory: true))
            }
            if items.count > limits.maxListingCount {
                throw SyncError(.listingTooLong, "the directory holds more than \(limits.maxListingCount) entries", path: path.rawValue)
            }
            token = page.isTruncated ? page.nextContinuationToken : nil
        } while token != nil
        if items.isEmpty && !sawMarker && !path.isRoot {
            if try await client.headObject(key: client.address.key(for: path), cloudPath: path.rawValue) != nil {
                throw SyncError(.typeMismatch, "not a directory", path: path.rawValue)
            }
            throw SyncError(.notFound, "no such directory", path: path.rawValue)
        }
        return items
    }

    /// Writes a zero-byte marker `name/` for the directory and each parent, after checking that
    /// no file has any of their keys; one `HeadObject` when the marker is already there.
    public func createDirectory(at path: CloudPath) async throws {
        let client = try client
        if path.isRoot { return }
        let address = client.address
        // Already there (its marker exists): one request.
        if try await client.headObject(key: address.directoryPrefix(for: path), cloudPath: path.rawValue) != nil { return }
        var level = CloudPath.root
        for name in path.names {
            level = try level.appending(name)
            if try await client.headObject(key: address.key(for: level), cloudPath: level.rawValue) != nil {
                throw SyncError(.typeMismatch, "a file is in the way of a directory", path: level.rawValue)
            }
            try await client.putObject(key: address.directoryPrefix(for: level), data: Data(), cloudPath: level.rawValue)
        }
    }

    /// One `PutObject` (atomic), after checking the parent directory exists and no directory
    /// has the file's key.
    public func upload(_ data: Data, to path: CloudPath) async throws {
        let client = try client
        guard let parent = path.parent, !path.isRoot else {
            throw SyncError(.unsafeName, "cannot upload to the root", path: path.rawValue)
        }
        if data.count > limits.maxFileSize {
            throw SyncError(.tooLarge, "\(data.count) bytes is above the limit of \(limits.maxFileSize)", path: path.rawValue)
        }
        try await requireDirectory(parent, client: client, for: path)
        if try await client.hasObjects(under: client.address.directoryPrefix(for: path), cloudPath: path.rawValue) {
            throw SyncError(.typeMismatch, "a directory is in the way of the file", path: path.rawValue)
        }
        try await client.putObject(key: client.address.key(for: path), data: data, cloudPath: path.rawValue)
    }

    /// One `GetObject`, refused from its `Content-Length` above `maxFileSize`.
    public func download(from path: CloudPath) async throws -> Data {
        let client = try client
        if path.isRoot { throw SyncError(.typeMismatch, "the root is a directory", path: path.rawValue) }
        if let data = try await client.getObject(key: client.address.key(for: path), maxBytes: limits.maxFileSize,
                                                 cloudPath: path.rawValue) {
            return data
        }
        if try await client.hasObjects(under: client.address.directoryPrefix(for: path), cloudPath: path.rawValue) {
            throw SyncError(.typeMismatch, "a directory, not a file", path: path.rawValue)
        }
        throw SyncError(.notFound, "no such file", path: path.rawValue)
    }

    /// `DeleteObject` of the key, then `DeleteObjects` of everything under `key/`, a page at a
    /// time.
    public func removeItem(at path: CloudPath) async throws {
        let client = try client
        if path.isRoot { throw SyncError(.unsafeName, "the root cannot be removed", path: path.rawValue) }
        try await client.deleteObject(key: client.address.key(for: path), cloudPath: path.rawValue)
        // Everything under the directory's prefix (its marker included), a page at a time.
        // Each page is deleted before the next is asked for, so the listing starts from the
        // front again rather than following a token into keys already gone. A server that
        // keeps listing deleted keys (an eventually consistent one) is given up on after
        // as many rounds as a million keys would take.
        let prefix = client.address.directoryPrefix(for: path)
        let batch = min(pageSize, S3DeleteBatch.maxKeys)
        for _ in 0..<(1_000_000 / batch + 1) {
            let page = try await client.listPage(prefix: prefix, delimiter: nil, continuationToken: nil,
                                                 maxKeys: batch, cloudPath: path.rawValue)
            let keys = page.objects.map(\.key).filter { $0.hasPrefix(prefix) }
            if keys.isEmpty { return }
            try await client.deleteObjects(keys: keys, cloudPath: path.rawValue)
        }
        throw SyncError(.backendFailure, "the server still lists objects under the directory after deleting them", path: path.rawValue)
    }

    /// Throws `SyncError/Code/notFound` unless `directory` exists (its marker, or any key
    /// under it).
    private func requireDirectory(_ directory: CloudPath, client: S3Client, for path: CloudPath) async throws {
        if directory.isRoot { return }
        let prefix = client.address.directoryPrefix(for: directory)
        if try await client.headObject(key: prefix, cloudPath: path.rawValue) != nil { return }
        if try await client.hasObjects(under: prefix, cloudPath: path.rawValue) { return }
        throw SyncError(.notFound, "the parent directory does not exist", path: path.rawValue)
    }
}

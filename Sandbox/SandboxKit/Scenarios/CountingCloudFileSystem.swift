import Foundation
import Strata
import StrataSync

/// A ``CloudFileSystem`` that passes every call to another one and counts the calls and the
/// bytes they carried, so the `sync` scenario can report what one sync costs on any backend.
///
/// A call is one primitive of the protocol; a server backend may make more than one HTTP
/// request for it (a WebDAV upload is a `PUT` and a `MOVE`), which is why the scenario reports
/// the backend's own request count next to it when the backend keeps one.
///
/// For example:
/// ```swift
/// let counted = CountingCloudFileSystem(wrapping: LocalCloudFileSystem(rootDirectory: folder))
/// let before = counted.totals
/// try await ensemble.sync()
/// print(counted.totals - before)
/// ```
final class CountingCloudFileSystem: CloudFileSystem {
    let wrapped: any CloudFileSystem
    private let counts = Locked(SyncTraffic())

    init(wrapping wrapped: any CloudFileSystem) { self.wrapped = wrapped }

    /// What was counted so far (calls, listings and bytes; no HTTP requests).
    var totals: SyncTraffic { counts.withLock { $0 } }

    var limits: CloudLimits { wrapped.limits }

    private func count(listing: Bool = false, up: Int = 0, down: Int = 0) {
        counts.withLock {
            $0.calls += 1
            if listing { $0.listings += 1 }
            $0.bytesUp += up
            $0.bytesDown += down
        }
    }

    func connect() async throws {
        count()
        try await wrapped.connect()
    }

    func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) {
        count()
        return try await wrapped.fileExists(at: path)
    }

    func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] {
        count(listing: true)
        return try await wrapped.contentsOfDirectory(at: path)
    }

    func createDirectory(at path: CloudPath) async throws {
        count()
        try await wrapped.createDirectory(at: path)
    }

    func upload(_ data: Data, to path: CloudPath) async throws {
        count(up: data.count)
        try await wrapped.upload(data, to: path)
    }

    func uploadLocalFile(at localURL: URL, to path: CloudPath) async throws {
        let size = (try? localURL.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0
        count(up: size)
        try await wrapped.uploadLocalFile(at: localURL, to: path)
    }

    func download(from path: CloudPath) async throws -> Data {
        let data = try await wrapped.download(from: path)
        count(down: data.count)
        return data
    }

    func download(from path: CloudPath, toLocalFile localURL: URL) async throws {
        try await wrapped.download(from: path, toLocalFile: localURL)
        let size = (try? localURL.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0
        count(down: size)
    }

    func removeItem(at path: CloudPath) async throws {
        count()
        try await wrapped.removeItem(at: path)
    }
}

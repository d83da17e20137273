import Foundation
import StrataSync
import StrataSyncServers
import StrataTestServers

/// The cloud of one `sync` run: the ``SyncBackend`` it chose, started (a folder made, or a
/// server launched on loopback), wrapped in a ``CountingCloudFileSystem``, and stopped by
/// ``stop()`` when the run ends.
///
/// For example:
/// ```swift
/// let server = try await SyncCloud.start(.webdav, scratch: run.scratch)
/// defer { server.stop() }
/// let ensemble = try await Ensemble(identifier: "SandboxSync", coordinator: coordinator,
///                                   cloudFileSystem: server.cloud, globalIdentifiers: .attribute("index"))
/// ```
struct SyncCloud: Sendable {
    /// What the peers share, counted.
    let cloud: CountingCloudFileSystem
    /// Where it is, for a client in another process (``FirstSyncProbe``).
    let address: SyncCloudAddress
    /// HTTP requests and bytes on the wire so far, when the backend is a server.
    private let wire: @Sendable () -> (requests: Int, bytesUp: Int, bytesDown: Int)?
    /// Stops what ``start(_:scratch:)`` started.
    let stop: @Sendable () -> Void

    /// The calls counted so far, with the server's requests and wire bytes when it has them.
    var traffic: SyncTraffic {
        var traffic = cloud.totals
        if let wire = wire() {
            traffic.requests = wire.requests
            traffic.hasRequests = true
            traffic.bytesUp = wire.bytesUp
            traffic.bytesDown = wire.bytesDown
        }
        return traffic
    }

    /// Bytes and files under `path` (the whole cloud by default), listed through the backend.
    func census(of path: String = "") async throws -> (bytes: Int, files: Int) {
        let start = path.isEmpty ? CloudPath.root : try CloudPath(path)
        var bytes = 0, files = 0
        var pending = [start]
        while let directory = pending.popLast() {
            let entries: [CloudItem]
            do { entries = try await cloud.wrapped.contentsOfDirectory(at: directory) } catch let error as SyncError where error.code == .notFound {
                continue
            }
            for entry in entries {
                if entry.isDirectory {
                    pending.append(try directory.appending(entry.name))
                } else {
                    bytes += entry.size
                    files += 1
                }
            }
        }
        return (bytes, files)
    }

    /// Starts `backend` for one run.
    static func start(_ backend: SyncBackend, scratch: ScratchDirectory) async throws -> SyncCloud {
        switch backend {
        case .local:
            let folder = scratch.newFile("sync-cloud").deletingPathExtension()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return SyncCloud(cloud: CountingCloudFileSystem(wrapping: LocalCloudFileSystem(rootDirectory: folder)), address: .local(folder),
                             wire: { nil }, stop: {})
        case .webdav:
            let server = try WebDAVTestServer.start()
            let address = SyncCloudAddress.webdav(baseURL: try server.makeFolder("sandbox"), username: server.username, password: server.password)
            guard let webdav = address.makeCloudFileSystem() as? WebDAVCloudFileSystem else { throw SandboxError("not a WebDAV client") }
            return SyncCloud(cloud: CountingCloudFileSystem(wrapping: webdav), address: address, wire: { webdav.transferCounters.wire }, stop: { server.stop() })
        case .s3:
            let server = try S3TestServer.start(recording: false)
            let address = SyncCloudAddress.s3(endpoint: server.endpoint, bucket: server.sharedBucket, region: "us-east-1",
                                              accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey, prefix: "sandbox")
            guard let s3 = address.makeCloudFileSystem() as? S3CloudFileSystem else { throw SandboxError("not an S3 client") }
            return SyncCloud(cloud: CountingCloudFileSystem(wrapping: s3), address: address, wire: { s3.transferCounters.wire }, stop: { server.stop() })
        }
    }
}

extension HTTPTransferCounters {
    /// Requests and body bytes each way, as ``SyncCloud`` reports them.
    var wire: (requests: Int, bytesUp: Int, bytesDown: Int) { (requests, bytesSent, bytesReceived) }
}

import Foundation
import Testing
@testable import StrataSync
import StrataSyncServers
import StrataTestServers

/// A real temporary directory, removed when the value is released.
final class TemporaryFolder: Sendable {
    let url: URL

    init(_ label: String = "sync") {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("strata-\(label)-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// The folder's path with its links resolved (`/tmp` may be a link).
    var path: String { url.path(percentEncoded: false) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

/// The backends every conformance test runs against.
enum Backend: String, CaseIterable, CustomTestStringConvertible {
    case local, memory
    /// nginx with WebDAV on loopback (one server per test process, a fresh folder per test).
    case webdav
    /// An `EncryptedCloudFileSystem` over a folder, at the test key derivation cost; `limits`
    /// are its own (plaintext) limits.
    case encrypted
    /// moto's S3 on loopback (one server per test process, a fresh key prefix in its shared
    /// bucket per test).
    case s3
    /// moto's S3, a bucket of the test's own, path-style addressing, keys at the bucket's root.
    case s3Bucket
    /// moto's S3, a bucket of the test's own, virtual-host addressing (`<bucket>.s3.strata.test`
    /// in the `Host` header, connections to 127.0.0.1).
    case s3VirtualHost

    var testDescription: String { rawValue }

    /// A fresh, empty cloud of this kind; the folder (for `.local`) lives as long as the result.
    /// Throws when a server backend's server cannot be started (the message says how to install it).
    func make(limits: CloudLimits = .standard) async throws -> (cloud: any CloudFileSystem, folder: TemporaryFolder?) {
        switch self {
        case .local:
            let folder = TemporaryFolder("cloud")
            return (LocalCloudFileSystem(rootDirectory: folder.url, limits: limits), folder)
        case .memory:
            return (MemoryCloudFileSystem(limits: limits), nil)
        case .webdav:
            let server = try WebDAVTestServer.shared()
            return (WebDAVCloudFileSystem(baseURL: try server.makeFolder(), username: server.username, password: server.password, limits: limits), nil)
        case .encrypted:
            let folder = TemporaryFolder("sealed")
            let inner = CloudLimits(maxFileSize: limits.maxFileSize + EncryptedCloudFileSystem.overhead, maxListingCount: limits.maxListingCount)
            let local = LocalCloudFileSystem(rootDirectory: folder.url, limits: inner)
            return (EncryptedCloudFileSystem(wrapping: local, password: "correct horse", cost: .minimal), folder)
        case .s3:
            let server = try S3TestServer.shared()
            return (S3CloudFileSystem(endpoint: server.endpoint, bucket: server.sharedBucket, region: "us-east-1",
                                      accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey,
                                      prefix: "sync-tests/\(UUID().uuidString.lowercased())", limits: limits), nil)
        case .s3Bucket, .s3VirtualHost:
            let server = try S3TestServer.shared()
            let virtualHost = self == .s3VirtualHost
            let endpoint = virtualHost ? URL(string: "http://s3.strata.test:\(server.port)") ?? server.endpoint : server.endpoint
            let s3 = S3CloudFileSystem(endpoint: endpoint, bucket: S3TestServer.uniqueBucketName(rawValue), region: "us-east-1",
                                       accessKeyID: server.accessKeyID, secretAccessKey: server.secretAccessKey,
                                       addressing: virtualHost ? .virtualHostConnectingTo("127.0.0.1") : .pathStyle, limits: limits)
            try await s3.createBucket()
            return (s3, nil)
        }
    }
}

/// Runs `body` and returns the `SyncError` code it threw, or `nil` if it did not throw one.
func syncErrorCode(_ body: () async throws -> Void) async -> SyncError.Code? {
    do { try await body(); return nil } catch let error as SyncError { return error.code } catch { return nil }
}

/// The same for synchronous calls.
func syncErrorCode(_ body: () throws -> Void) -> SyncError.Code? {
    do { try body(); return nil } catch let error as SyncError { return error.code } catch { return nil }
}

func path(_ text: String) throws -> CloudPath { try CloudPath(text) }

import Foundation
import StrataSyncServers
import StrataTestServers

/// The ways the S3 tests reach moto: a bucket of their own by path or by virtual host, or a
/// key prefix inside the shared bucket.
enum S3Flavor: String, CaseIterable, CustomStringConvertible, Sendable {
    case pathStyle, virtualHost, prefixed

    var description: String { rawValue }
}

/// Makes S3 file systems on the shared moto server.
enum S3Fixture {
    /// The host name virtual-host requests carry: `<bucket>.s3.strata.test:<port>`, sent to
    /// 127.0.0.1 (no DNS is needed; moto reads the bucket from the `Host` header).
    static let virtualHostName = "s3.strata.test"

    /// A fresh, empty cloud of `flavor`: a new bucket (path style or virtual host), or a new
    /// prefix in the shared bucket.
    static func make(_ flavor: S3Flavor = .pathStyle, limits: CloudLimits = .standard,
                     policy: HTTPRequestPolicy = .standard) async throws -> S3CloudFileSystem {
        let server = try S3TestServer.shared()
        switch flavor {
        case .pathStyle, .virtualHost:
            let bucket = S3TestServer.uniqueBucketName(flavor.rawValue)
            let cloud = make(server: server, bucket: bucket, flavor: flavor, limits: limits, policy: policy)
            try await cloud.createBucket()
            return cloud
        case .prefixed:
            return make(server: server, bucket: server.sharedBucket, flavor: flavor, limits: limits, policy: policy)
        }
    }

    /// A cloud on `server` (any bucket, made or not).
    static func make(server: S3TestServer, bucket: String, flavor: S3Flavor = .pathStyle, limits: CloudLimits = .standard,
                     policy: HTTPRequestPolicy = .standard, accessKeyID: String? = nil,
                     secretAccessKey: String? = nil) -> S3CloudFileSystem {
        var endpoint = server.endpoint
        var addressing = S3Addressing.pathStyle
        var prefix = ""
        switch flavor {
        case .pathStyle: break
        case .virtualHost:
            endpoint = URL(string: "http://\(virtualHostName):\(server.port)") ?? endpoint
            addressing = .virtualHostConnectingTo("127.0.0.1")
        case .prefixed:
            prefix = "tests/\(UUID().uuidString.lowercased())"
        }
        return S3CloudFileSystem(endpoint: endpoint, bucket: bucket, region: "us-east-1",
                                 accessKeyID: accessKeyID ?? server.accessKeyID,
                                 secretAccessKey: secretAccessKey ?? server.secretAccessKey,
                                 addressing: addressing, prefix: prefix, limits: limits, policy: policy)
    }

    /// A policy that fails fast (one attempt, short timeout) for tests of failures.
    static let impatient = HTTPRequestPolicy(timeout: .seconds(5), maxAttempts: 1)
}

/// Runs `body` and returns the `SyncError` code it threw, or `nil` if it did not throw one.
func s3ErrorCode(_ body: () async throws -> Void) async -> SyncError.Code? {
    do { try await body(); return nil } catch let error as SyncError { return error.code } catch { return nil }
}

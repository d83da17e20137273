import Foundation
import Strata
import StrataSyncServers
import StrataTestServers
import Testing

/// Faults injected by a loopback proxy in front of the shared moto server.
@Suite("S3 against moto: injected faults")
struct S3ProxyFaultTests {
    /// A cloud in a fresh bucket, reached through `proxy`.
    private func cloud(through proxy: LoopbackHTTPServer, bucket: String, policy: HTTPRequestPolicy) throws -> S3CloudFileSystem {
        let server = try S3TestServer.shared()
        return S3CloudFileSystem(endpoint: proxy.url, bucket: bucket, region: "us-east-1", accessKeyID: server.accessKeyID,
                                 secretAccessKey: server.secretAccessKey, policy: policy)
    }

    @Test("a 500 (and a 503 SlowDown) on one request is retried; the upload lands once")
    func retriedServerErrors() async throws {
        let server = try S3TestServer.shared()
        let puts = Locked(0)
        let proxy = try LoopbackHTTPServer { request in
            guard request.method == "PUT", request.target.contains("/f") else { return .forward(to: server.port) }
            let count = puts.withLock { value -> Int in value += 1; return value }
            switch count {
            case 1: return .respond(status: 500, body: "<Error><Code>InternalError</Code></Error>")
            case 2: return .respond(status: 503, body: "<Error><Code>SlowDown</Code><Message>Reduce your request rate.</Message></Error>")
            default: return .forward(to: server.port)
            }
        }
        let bucket = S3TestServer.uniqueBucketName("retry")
        let cloud = try cloud(through: proxy, bucket: bucket, policy: HTTPRequestPolicy(maxAttempts: 4, backoffBase: .milliseconds(10)))
        try await cloud.createBucket()
        try await cloud.upload(Data("payload".utf8), to: try CloudPath("f"))
        #expect(puts.withLock { $0 } == 3)
        #expect(cloud.transferCounters.retries == 2)
        #expect(try await cloud.download(from: try CloudPath("f")) == Data("payload".utf8))
    }

    @Test("a 500 with retries exhausted, and a connection dropped mid-upload, are typed errors; the next sync completes and the peers converge")
    func failedRequestsThenConvergence() async throws {
        let server = try S3TestServer.shared()
        // Fault plan: the first PUT of an events file answers 500, the second is cut off
        // halfway through its body; everything else goes through.
        let faults = Locked(0)
        let proxy = try LoopbackHTTPServer { request in
            guard request.method == "PUT", request.target.contains("/events/"), !request.target.hasSuffix("/") else {
                return .forward(to: server.port)
            }
            let count = faults.withLock { value -> Int in value += 1; return value }
            switch count {
            case 1: return .respond(status: 500, body: "<Error><Code>InternalError</Code></Error>")
            case 2: return .dropMidBody(to: server.port)
            default: return .forward(to: server.port)
            }
        }
        let bucket = S3TestServer.uniqueBucketName("faults")
        let once = HTTPRequestPolicy(timeout: .seconds(5), maxAttempts: 1)
        let model = try S3SyncDevice.model()
        let a = try await S3SyncDevice("a", cloud: try cloud(through: proxy, bucket: bucket, policy: once), model: model)
        let b = try await S3SyncDevice("b", cloud: S3Fixture.make(server: server, bucket: bucket), model: model)
        try await a.cloud.createBucket()
        try await a.add(["a1", "a2"])
        try await b.add(["b1"])

        // a's first two uploads of an events file fail: typed errors, nothing half-written.
        var failures: [SyncError.Code] = []
        for _ in 0..<6 where faults.withLock({ $0 }) < 3 {
            do {
                if await a.ensemble.isAttached { _ = try await a.ensemble.sync() } else { try await a.ensemble.attach() }
            } catch {
                failures.append(error.code)
            }
        }
        #expect(failures.count == 2 && failures.allSatisfy { $0 == .backendFailure }, "\(failures)")
        try await b.ensemble.attach()
        for _ in 0..<2 {
            _ = try await a.ensemble.sync()
            _ = try await b.ensemble.sync()
        }
        let expected = ["a1=0", "a2=0", "b1=0"]
        #expect(try await a.contents() == expected)
        #expect(try await b.contents() == expected)
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())
        // Every events file in the bucket is whole: b downloaded and merged them all.
        let events = try await b.cloud.contentsOfDirectory(at: try CloudPath("Notes/events"))
        #expect(!events.isEmpty && events.allSatisfy { $0.size > 0 })
    }

    @Test("a listing slower than the request timeout times out and is retried; the sync completes and the peers converge")
    func slowListing() async throws {
        let server = try S3TestServer.shared()
        let slowed = Locked(false)   // armed: the next ListObjectsV2 is held past the timeout, once
        let injected = Locked(0)
        let proxy = try LoopbackHTTPServer { request in
            guard request.method == "GET", request.target.contains("list-type=2"),
                  slowed.withLock({ armed in defer { armed = false }; return armed }) else { return .forward(to: server.port) }
            injected.withLock { $0 += 1 }
            return .delayThenForward(seconds: 4, to: server.port)
        }
        let bucket = S3TestServer.uniqueBucketName("slow")
        let patient = HTTPRequestPolicy(timeout: .seconds(1), maxAttempts: 3, backoffBase: .milliseconds(20))
        let model = try S3SyncDevice.model()
        let a = try await S3SyncDevice("a", cloud: try cloud(through: proxy, bucket: bucket, policy: patient), model: model)
        let b = try await S3SyncDevice("b", cloud: S3Fixture.make(server: server, bucket: bucket), model: model)
        try await a.cloud.createBucket()
        try await a.add(["a1"])
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.add(["b1"])
        _ = try await b.ensemble.sync()
        let retriesBefore = a.cloud.transferCounters.retries
        slowed.withLock { $0 = true }
        _ = try await a.ensemble.sync()                 // the slow listing timed out, then was answered
        #expect(injected.withLock { $0 } == 1)
        #expect(a.cloud.transferCounters.retries > retriesBefore)
        for _ in 0..<2 {
            _ = try await a.ensemble.sync()
            _ = try await b.ensemble.sync()
        }
        #expect(try await a.contents() == ["a1=0", "b1=0"])
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())
    }
}

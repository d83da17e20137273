import Foundation
import Testing
import StrataSyncServers
import StrataTestServers
import Synchronization

/// Faults against a real moto process: stopped in the middle of a sync and restarted. Each
/// test has a private server that journals its requests, so a restart brings the bucket back
/// as a durable server would.
@Suite("S3 against moto: faults", .serialized)
struct S3FaultTests {
    /// Short timeouts and two attempts, so a stopped server fails a call quickly.
    static let policy = HTTPRequestPolicy(timeout: .seconds(5), maxAttempts: 2, backoffBase: .milliseconds(50), backoffCap: .milliseconds(200))

    @Test("the server stopped in the middle of a sync: typed errors while down, then the next syncs complete and the peers converge")
    func serverStoppedMidSync() async throws {
        let server = try S3TestServer.start(recording: true)
        defer { server.stop() }
        let bucket = S3TestServer.uniqueBucketName("restart")
        func cloud() -> S3CloudFileSystem { S3Fixture.make(server: server, bucket: bucket, policy: Self.policy) }
        try await cloud().createBucket()
        let model = try S3SyncDevice.model()
        let a = try await S3SyncDevice("a", cloud: cloud(), model: model)
        let b = try await S3SyncDevice("b", cloud: cloud(), model: model)
        try await a.add((0..<10).map { "a\($0)" })
        try await b.add((0..<10).map { "b\($0)" })
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        _ = try await a.ensemble.sync()
        _ = try await b.ensemble.sync()

        // a has more to upload; the server stops once a's sync has sent a request or two.
        try await a.add((10..<40).map { "a\($0)" })
        try await a.setCount("b3", 7)
        let before = a.cloud.transferCounters.requests
        let midSync = Task { () -> SyncError? in
            do throws(SyncError) { _ = try await a.ensemble.sync(); return nil } catch { return error }
        }
        for _ in 0..<500 where a.cloud.transferCounters.requests < before + 2 { try await Task.sleep(for: .milliseconds(2)) }
        server.stop()
        if let error = await midSync.value {
            #expect([SyncError.Code.backendFailure, .notConnected].contains(error.code), "\(error)")
        }

        // While the server is down every sync is a typed error, never a crash or a hang.
        try await b.add(["b-while-down"])
        do {
            _ = try await b.ensemble.sync()
            Issue.record("a sync succeeded with the server stopped")
        } catch {
            #expect([SyncError.Code.backendFailure, .notConnected].contains(error.code), "\(error)")
        }

        try server.restart()
        for _ in 0..<2 {
            _ = try await a.ensemble.sync()
            _ = try await b.ensemble.sync()
        }
        let expected = ((0..<40).map { "a\($0)=0" } + (0..<10).map { $0 == 3 ? "b3=7" : "b\($0)=0" } + ["b-while-down=0"]).sorted()
        #expect(try await a.contents() == expected)
        #expect(try await b.contents() == expected)
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())
    }
}

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
        let puts = Mutex(0)
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
        let faults = Mutex(0)
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
}

/// Answers no S3 server on loopback gives by itself, scripted.
@Suite("S3: scripted answers")
struct S3ScriptedAnswerTests {
    @Test("a region redirect is notConnected naming the bucket's region, not followed")
    func regionRedirect() async throws {
        let responder = try LoopbackHTTPServer { _ in
            .respond(status: 301, headers: ["x-amz-bucket-region": "eu-west-1"],
                     body: "<Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint.</Message></Error>")
        }
        let cloud = S3CloudFileSystem(endpoint: responder.url, bucket: "notes", region: "us-east-1",
                                      accessKeyID: "AKIDEXAMPLE", secretAccessKey: "secret-not-shown")
        do {
            _ = try await cloud.download(from: try CloudPath("f"))
            Issue.record("a 301 was taken as success")
        } catch let error as SyncError {
            #expect(error.code == .notConnected)
            #expect(error.message.contains("eu-west-1"))
            #expect(!"\(error)".contains("secret-not-shown"))
        }
        #expect(responder.requests.count == 1)
        // The request was signed: the Authorization header names the key and the scope.
        let authorization = responder.requests.first?.headers["authorization"] ?? ""
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/"))
        #expect(authorization.contains("/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature="))
        #expect(responder.requests.first?.target == "/notes/f")
    }

    @Test("a listing that is not XML, and a delete answer naming a failed key, are backendFailure")
    func brokenAnswers() async throws {
        let responder = try LoopbackHTTPServer { request in
            if request.method == "POST" {
                return .respond(status: 200, body: "<DeleteResult><Error><Key>d/x</Key><Code>AccessDenied</Code></Error></DeleteResult>")
            }
            if request.target.contains("max-keys=1&") || request.target.contains("list-type=2") && !request.target.contains("delimiter") {
                return .respond(status: 200, body: "<ListBucketResult><IsTruncated>false</IsTruncated><Contents><Key>d/x</Key><Size>1</Size></Contents></ListBucketResult>")
            }
            if request.target.contains("list-type=2") { return .respond(status: 200, body: "<html>not a listing</html>") }
            return .respond(status: 204)
        }
        let cloud = S3CloudFileSystem(endpoint: responder.url, bucket: "notes", region: "us-east-1",
                                      accessKeyID: "AKIDEXAMPLE", secretAccessKey: "s")
        #expect(await s3ErrorCode { _ = try await cloud.contentsOfDirectory(at: try CloudPath("d")) } == .backendFailure)
        #expect(await s3ErrorCode { try await cloud.removeItem(at: try CloudPath("d")) } == .backendFailure)
    }
}

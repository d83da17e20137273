import Foundation
import Testing
import StrataSyncServers
import StrataTestServers

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

import Foundation
import Testing
import StrataSyncServers
import StrataTestServers

/// What a sync costs over S3, in requests (printed; only what cannot vary is asserted).
@Suite("S3 sync cost")
struct S3SyncCostTests {
    @Test("a no-op sync over S3 uploads nothing; its request count is printed")
    func noOpSync() async throws {
        let server = try S3TestServer.shared()
        let bucket = S3TestServer.uniqueBucketName("cost")
        let model = try S3SyncDevice.model()
        let a = try await S3SyncDevice("a", cloud: S3Fixture.make(server: server, bucket: bucket), model: model)
        let b = try await S3SyncDevice("b", cloud: S3Fixture.make(server: server, bucket: bucket), model: model)
        try await a.cloud.createBucket()
        try await a.add((0..<50).map { "a\($0)" })
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        for _ in 0..<2 {
            _ = try await a.ensemble.sync()
            _ = try await b.ensemble.sync()
        }
        let before = a.cloud.transferCounters
        _ = try await a.ensemble.sync()
        let noOp = a.cloud.transferCounters - before
        print("S3 no-op sync: \(noOp)")
        #expect(noOp.requests > 0)
        #expect(noOp.bytesSent == 0, "a no-op sync uploads nothing: \(noOp)")
        #expect(noOp.retries == 0)
        #expect(try await a.contents() == b.contents())
    }
}

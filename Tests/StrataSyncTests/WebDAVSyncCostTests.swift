import Foundation
import StrataSyncServers
import StrataTestServers
import Testing
@testable import StrataSync

/// What a sync costs over WebDAV, in requests (the Sandbox reports the same figures).
@Suite("WebDAV sync cost")
struct WebDAVSyncCostTests {
    @Test("a no-op sync over WebDAV writes nothing; its request count is printed")
    func noOpSync() async throws {
        let server = try WebDAVTestServer.shared()
        let folder = try server.makeFolder("cost")
        let cloudA = WebDAVCloudFileSystem(baseURL: folder, username: server.username, password: server.password)
        let cloudB = WebDAVCloudFileSystem(baseURL: folder, username: server.username, password: server.password)
        let model = try SyncTestModel.make()
        let a = try await SyncPeer("a", cloud: cloudA, model: model)
        let b = try await SyncPeer("b", cloud: cloudB, model: model)
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "u", "name": "U"]) }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        for _ in 0..<2 { try await a.ensemble.sync(); try await b.ensemble.sync() }
        let before = cloudA.transferCounters
        try await a.ensemble.sync()
        let noOp = cloudA.transferCounters - before
        print("WebDAV no-op sync: \(noOp)")
        #expect(noOp.requests > 0)
        #expect(noOp.bytesSent <= noOp.requests * 200, "only PROPFIND bodies are sent: \(noOp)")
        #expect(try await a.dump() == b.dump())
    }
}

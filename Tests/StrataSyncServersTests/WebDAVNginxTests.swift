import Foundation
import StrataSyncServers
import StrataTestServers
import Testing

/// WebDAV against the real nginx: names that need encoding, credentials, connect, the
/// upload's temporary names.
@Suite("WebDAV against nginx")
struct WebDAVNginxTests {
    @Test("names with spaces, %, +, #, ?, & and non-ASCII round-trip through PUT, PROPFIND and GET")
    func percentEncodingRoundTrip() async throws {
        let cloud = try makeWebDAVCloud()
        try await cloud.connect()
        let folder = try path("dir with space/ünï €")
        try await cloud.createDirectory(at: folder)
        let names = ["a b", "100%", "x+y&z=1", "#hash", "?query", "semi;colon", "[brackets]", "日本語", "quote\"s", "%2e%2e", "plus+"]
        for (index, name) in names.enumerated() {
            try await cloud.upload(Data("content \(index)".utf8), to: try folder.appending(name))
        }
        let listed = try await cloud.contentsOfDirectory(at: folder)
        #expect(Set(listed.map(\.name.rawValue)) == Set(names))
        for (index, name) in names.enumerated() {
            #expect(try await cloud.download(from: try folder.appending(name)) == Data("content \(index)".utf8), "\(name)")
            #expect(try await cloud.fileExists(at: try folder.appending(name)) == (true, false), "\(name)")
        }
        #expect(try await cloud.contentsOfDirectory(at: try path("dir with space")).map(\.name.rawValue) == ["ünï €"])
        // No temporary upload name is left behind on the server.
        let server = try WebDAVTestServer.shared()
        let local = server.davDirectory.appendingPathComponent(cloud.baseURL.lastPathComponent).appendingPathComponent("dir with space/ünï €")
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: local.path)
        #expect(Set(onDisk) == Set(names))
        await cloud.shutdown()
    }

    @Test("a wrong password is authenticationFailed after one request, never retried")
    func wrongPassword() async throws {
        let cloud = try makeWebDAVCloud(policy: quickPolicy, password: "wrong")
        #expect(await syncErrorCode { try await cloud.connect() } == .authenticationFailed)
        #expect(cloud.transferCounters.requests == 1)
        #expect(await syncErrorCode { _ = try await cloud.download(from: try path("x")) } == .authenticationFailed)
        #expect(cloud.transferCounters.requests == 2)
        #expect(cloud.transferCounters.retries == 0)
        do { try await cloud.connect() } catch { #expect(!"\(error)".contains("wrong"), "the password is not in the error") }
    }

    @Test("connect fails with notConnected when the base folder is missing; counters count requests and bytes")
    func connectAndCounters() async throws {
        let server = try WebDAVTestServer.shared()
        let missing = WebDAVCloudFileSystem(baseURL: server.baseURL.appendingPathComponent("no-such-folder-\(UUID().uuidString)/"),
                                            username: server.username, password: server.password)
        #expect(await syncErrorCode { try await missing.connect() } == .notConnected)

        let cloud = try makeWebDAVCloud()
        let before = cloud.transferCounters
        try await cloud.connect()
        try await cloud.upload(Data(count: 1_000), to: try path("f"))
        _ = try await cloud.download(from: try path("f"))
        let moved = cloud.transferCounters - before
        #expect(moved.requests == 4)  // PROPFIND, PUT, MOVE, GET
        #expect(moved.bytesSent >= 1_000)
        #expect(moved.bytesReceived >= 1_000)
    }

    @Test("replacing a file keeps readers whole: every download is the old or the new content")
    func replaceIsAtomic() async throws {
        let cloud = try makeWebDAVCloud()
        let file = try path("f")
        let old = Data(repeating: 1, count: 200_000), new = Data(repeating: 2, count: 300_000)
        try await cloud.upload(old, to: file)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { for _ in 0..<5 { try await cloud.upload(new, to: file); try await cloud.upload(old, to: file) } }
            group.addTask {
                for _ in 0..<20 {
                    let seen = try await cloud.download(from: file)
                    #expect(seen == old || seen == new)
                }
            }
            try await group.waitForAll()
        }
        #expect(try await cloud.contentsOfDirectory(at: .root).map(\.name.rawValue) == ["f"])
    }
}

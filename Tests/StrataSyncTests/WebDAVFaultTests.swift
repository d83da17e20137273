import Foundation
import Strata
import StrataSyncServers
import StrataTestServers
import Testing
@testable import StrataSync

/// Faults against the real nginx, between two peers: peer a talks to it through a
/// fault-injecting loopback proxy, peer b directly. Each fault gives a typed error or a
/// retry; the next sync completes and both peers end with every edit.
@Suite("WebDAV faults against nginx", .serialized)
struct WebDAVFaultTests {
    /// What the proxy does to the next matching request (then it passes everything).
    enum Fault: Sendable {
        case stopServer(afterRequests: Int)
        case dropMidUpload
        case status500
        case slowListing(seconds: Double)
    }

    /// The proxy's script and what it did, shared with its threads.
    final class FaultState: Sendable {
        let fault = Locked<Fault?>(nil)
        let requestsSeen = Locked(0)
        let injected = Locked(0)
    }

    /// A private nginx, a proxy in front of it, and the two peers' clouds on one folder.
    final class Rig: Sendable {
        let server: WebDAVTestServer
        let proxy: LoopbackHTTPServer
        let viaProxy: WebDAVCloudFileSystem
        let direct: WebDAVCloudFileSystem
        let state = FaultState()

        init(policy: HTTPRequestPolicy) throws {
            let server = try WebDAVTestServer.start()
            let state = self.state, port = server.port
            // The proxy holds the server weakly: a request it still holds when the test ends (a
            // listing delayed past the client's timeout) must not keep nginx and its folder alive.
            proxy = try LoopbackHTTPServer { [weak server] request in
                let count = state.requestsSeen.withLock { $0 += 1; return $0 }
                let action: LoopbackHTTPServer.Action? = state.fault.withLock { current in
                    switch current {
                    case .stopServer(let after) where count >= after:
                        current = nil
                        server?.stop()
                        return .drop
                    case .dropMidUpload where request.method == "PUT" && request.body.count > 1:
                        current = nil
                        return .dropMidBody(to: port)
                    case .status500 where request.method == "PUT":
                        current = nil
                        return .respond(status: 500)
                    case .slowListing(let seconds) where request.method == "PROPFIND" && request.headers["depth"] == "1":
                        current = nil
                        return .delayThenForward(seconds: seconds, to: port)
                    default:
                        return nil
                    }
                }
                if action != nil { state.injected.withLock { $0 += 1 } }
                return action ?? .forward(to: port)
            }
            self.server = server
            let folder = try server.makeFolder("faults")
            let proxied = URL(string: "http://127.0.0.1:\(proxy.port)\(folder.path(percentEncoded: true))") ?? folder
            viaProxy = WebDAVCloudFileSystem(baseURL: proxied, username: server.username, password: server.password, policy: policy)
            direct = WebDAVCloudFileSystem(baseURL: folder, username: server.username, password: server.password)
        }

        /// Peers a (through the proxy) and b (direct), attached, with one synced author.
        func peers() async throws -> (SyncPeer, SyncPeer) {
            let model = try SyncTestModel.make()
            let a = try await SyncPeer("a", cloud: viaProxy, model: model)
            let b = try await SyncPeer("b", cloud: direct, model: model)
            try await a.edit { try $0.make("Author", ["uniqueIdentifier": "first", "name": "First"]) }
            try await a.ensemble.attach()
            try await b.ensemble.attach()
            try await a.ensemble.sync()
            try await b.ensemble.sync()
            #expect(try await b.count("Author") == 1)
            return (a, b)
        }
    }

    /// Both peers sync until they agree; every author added is there on both.
    func expectConverged(_ a: SyncPeer, _ b: SyncPeer, authors: Int) async throws {
        for _ in 0..<2 {
            try await a.ensemble.sync()
            try await b.ensemble.sync()
        }
        #expect(try await a.count("Author") == authors)
        #expect(try await b.count("Author") == authors)
        #expect(try await a.dump() == b.dump())
    }

    static let patient = HTTPRequestPolicy(timeout: .seconds(20), maxAttempts: 4, backoffBase: .milliseconds(20), backoffCap: .milliseconds(200))
    static let noRetry = HTTPRequestPolicy(timeout: .seconds(20), maxAttempts: 1)

    @Test("the server stopped in the middle of a sync: a typed error; restarted, the next sync completes")
    func serverStoppedMidSync() async throws {
        let rig = try Rig(policy: HTTPRequestPolicy(timeout: .seconds(5), maxAttempts: 2, backoffBase: .milliseconds(20)))
        let (a, b) = try await rig.peers()
        // How many requests a sync with one new edit takes, to stop the server halfway through the next.
        let before = rig.state.requestsSeen.withLock { $0 }
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "second", "name": "Second"]) }
        try await a.ensemble.sync()
        let perSync = rig.state.requestsSeen.withLock { $0 } - before
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "third", "name": "Third"]) }
        let start = rig.state.requestsSeen.withLock { $0 }
        rig.state.fault.withLock { $0 = .stopServer(afterRequests: start + max(1, perSync / 2)) }
        var code: SyncError.Code?
        do { try await a.ensemble.sync() } catch { code = error.code }
        #expect(rig.state.injected.withLock { $0 } == 1)
        #expect(code == .backendFailure || code == .notConnected, "got \(String(describing: code))")
        #expect(!rig.server.process.isRunning)
        try rig.server.restart()
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "fourth", "name": "Fourth"]) }
        try await expectConverged(a, b, authors: 4)
    }

    @Test("a connection dropped halfway through an upload is retried; nothing partial is left and the peers converge")
    func connectionDroppedMidUpload() async throws {
        let rig = try Rig(policy: Self.patient)
        let (a, b) = try await rig.peers()
        let retriesBefore = rig.viaProxy.transferCounters.retries
        rig.state.fault.withLock { $0 = .dropMidUpload }
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "second", "name": String(repeating: "long name ", count: 200)]) }
        try await a.ensemble.sync()
        #expect(rig.state.injected.withLock { $0 } == 1)
        #expect(rig.viaProxy.transferCounters.retries > retriesBefore)
        try await expectConverged(a, b, authors: 2)
        let leftovers = try allNames(under: rig.server.davDirectory).filter { $0.hasPrefix(".strata-upload-") }
        #expect(leftovers.isEmpty, "temporary uploads left: \(leftovers)")
    }

    @Test("a 500 on one upload: a typed error without retries, and the next sync completes")
    func status500OnOneRequest() async throws {
        let rig = try Rig(policy: Self.noRetry)
        let (a, b) = try await rig.peers()
        rig.state.fault.withLock { $0 = .status500 }
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "second", "name": "Second"]) }
        var code: SyncError.Code?
        do { try await a.ensemble.sync() } catch { code = error.code }
        #expect(rig.state.injected.withLock { $0 } == 1)
        #expect(code == .backendFailure)
        try await expectConverged(a, b, authors: 2)
    }

    @Test("a 500 on one upload with retries allowed: retried within the same sync")
    func status500Retried() async throws {
        let rig = try Rig(policy: Self.patient)
        let (a, b) = try await rig.peers()
        rig.state.fault.withLock { $0 = .status500 }
        try await a.edit { try $0.make("Author", ["uniqueIdentifier": "second", "name": "Second"]) }
        try await a.ensemble.sync()
        #expect(rig.state.injected.withLock { $0 } == 1)
        #expect(rig.viaProxy.transferCounters.retries >= 1)
        try await expectConverged(a, b, authors: 2)
    }

    @Test("a listing slower than the request timeout times out and is retried; the sync completes")
    func slowListing() async throws {
        let rig = try Rig(policy: HTTPRequestPolicy(timeout: .seconds(2), maxAttempts: 3, backoffBase: .milliseconds(20)))
        let (a, b) = try await rig.peers()
        try await b.edit { try $0.make("Author", ["uniqueIdentifier": "second", "name": "Second"]) }
        try await b.ensemble.sync()
        let retriesBefore = rig.viaProxy.transferCounters.retries
        rig.state.fault.withLock { $0 = .slowListing(seconds: 5) }
        try await a.ensemble.sync()
        #expect(rig.state.injected.withLock { $0 } == 1)
        #expect(rig.viaProxy.transferCounters.retries > retriesBefore)
        try await expectConverged(a, b, authors: 2)
    }

    func allNames(under folder: URL) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return [] }
        return walker.compactMap { ($0 as? String).map { URL(fileURLWithPath: $0).lastPathComponent } }
    }
}

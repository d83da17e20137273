import Foundation
import Strata
import StrataSyncServers
import StrataTestServers
import Testing

/// Answers nginx never gives, from a scripted loopback server: hrefs outside the base URL,
/// broken XML, redirects to another origin, oversized bodies, flaky statuses.
@Suite("WebDAV against hostile servers")
struct WebDAVHostileServerTests {
    func cloud(_ server: LoopbackHTTPServer, limits: CloudLimits = .standard) -> WebDAVCloudFileSystem {
        WebDAVCloudFileSystem(baseURL: server.url.appendingPathComponent("dav/base/"), username: "alice", password: "s3cret",
                              limits: limits, policy: quickPolicy)
    }

    @Test("hrefs to another host, with .. or . segments, under another prefix or too deep are left out of listings")
    func hrefsOutsideTheBaseAreLeftOut() async throws {
        let body = multistatus([
            ("/dav/base/dir/", true, 0),
            ("/dav/base/dir/good", false, 3),
            ("http://127.0.0.1:1/dav/base/dir/other-port", false, 1),
            ("http://evil.example/dav/base/dir/other-host", false, 1),
            ("https://127.0.0.1/dav/base/dir/other-scheme", false, 1),
            ("/dav/base/dir/../../../etc/passwd", false, 1),
            ("/dav/base/dir/%2e%2e/escaped", false, 1),
            ("/dav/base/dir/./dot", false, 1),
            ("/elsewhere/dir/prefix", false, 1),
            ("/dav/base/dir/sub/too-deep", false, 1),
            ("/dav/base/dir/bad%2Fslash", false, 1),
            ("/dav/base/dir/ctl%01char", false, 1),
            ("relative-href", false, 1),
            ("/dav/base/dir/.strata-upload-123", false, 1),
            ("/dav/base/dir/also%20good", false, 4),
        ])
        let server = try LoopbackHTTPServer { _ in .respond(status: 207, headers: ["Content-Type": "application/xml"], body: body) }
        let items = try await cloud(server).contentsOfDirectory(at: try path("dir"))
        #expect(items.map(\.name.rawValue).sorted() == ["also good", "good"])
        #expect(items.first { $0.name.rawValue == "good" }?.size == 3)
    }

    @Test("a depth-0 answer about another address is unsafeName; malformed XML is backendFailure")
    func depthZeroElsewhereAndMalformedXML() async throws {
        let elsewhere = try LoopbackHTTPServer { _ in .respond(status: 207, body: multistatus([("http://evil.example/dav/base/f", false, 1)])) }
        #expect(await syncErrorCode { _ = try await cloud(elsewhere).fileExists(at: try path("f")) } == .unsafeName)
        let broken = try LoopbackHTTPServer { _ in .respond(status: 207, body: "<D:multistatus xmlns:D=\"DAV:\"><D:response><D:href>") }
        #expect(await syncErrorCode { _ = try await cloud(broken).contentsOfDirectory(at: .root) } == .backendFailure)
        let notXML = try LoopbackHTTPServer { _ in .respond(status: 207, body: "hello, I am not XML") }
        #expect(await syncErrorCode { _ = try await cloud(notXML).fileExists(at: try path("f")) } == .backendFailure)
    }

    @Test("a redirect to another origin is followed without the credentials; the same origin keeps them")
    func redirectDropsCredentialsAcrossOrigins() async throws {
        let other = try LoopbackHTTPServer { _ in .respond(status: 200, body: "payload") }
        let first = try LoopbackHTTPServer { request in
            if request.target.hasSuffix("/moved") { return .respond(status: 200, body: "same origin") }
            if request.target.hasSuffix("/local") { return .respond(status: 307, headers: ["Location": "/dav/base/moved"]) }
            return .respond(status: 302, headers: ["Location": "http://127.0.0.1:\(other.port)/files/f"])
        }
        let webdav = cloud(first)
        #expect(try await webdav.download(from: try path("f")) == Data("payload".utf8))
        #expect(first.requests.first?.headers["authorization"]?.hasPrefix("Basic ") == true)
        #expect(other.requests.count == 1)
        #expect(other.requests.first?.headers["authorization"] == nil)
        #expect(try await webdav.download(from: try path("local")) == Data("same origin".utf8))
        #expect(first.requests.last?.target == "/dav/base/moved")
        #expect(first.requests.last?.headers["authorization"] != nil)
    }

    @Test("redirect loops stop after the policy's hop count")
    func redirectLoop() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 302, headers: ["Location": "/dav/base/again"]) }
        #expect(await syncErrorCode { _ = try await cloud(server).download(from: try path("f")) } == .backendFailure)
        #expect(server.requests.count <= 7)
    }

    @Test("a Content-Length above the limit is tooLarge before the body is read")
    func tooLargeByContentLength() async throws {
        let server = try LoopbackHTTPServer { _ in .respond(status: 200, body: String(repeating: "x", count: 5_000)) }
        let webdav = cloud(server, limits: CloudLimits(maxFileSize: 1_000))
        #expect(await syncErrorCode { _ = try await webdav.download(from: try path("big")) } == .tooLarge)
        #expect(webdav.transferCounters.bytesReceived == 0)
    }

    @Test("a 500 and a 503 with Retry-After are retried; a 507 and a 404 are not")
    func retries() async throws {
        let failures = Locked([500, 503])
        let server = try LoopbackHTTPServer { request in
            if request.target.hasSuffix("/full") { return .respond(status: 507) }
            if request.target.hasSuffix("/missing") { return .respond(status: 404) }
            if let status = failures.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
                return .respond(status: status, headers: status == 503 ? ["Retry-After": "0"] : [:])
            }
            return .respond(status: 200, body: "ok")
        }
        let webdav = cloud(server)
        #expect(try await webdav.download(from: try path("f")) == Data("ok".utf8))
        #expect(webdav.transferCounters.retries == 2)
        #expect(await syncErrorCode { _ = try await webdav.download(from: try path("full")) } == .backendFailure)
        #expect(await syncErrorCode { _ = try await webdav.download(from: try path("missing")) } == .notFound)
        #expect(webdav.transferCounters.retries == 2)
        let always = try LoopbackHTTPServer { _ in .respond(status: 502) }
        let flaky = cloud(always)
        #expect(await syncErrorCode { _ = try await flaky.download(from: try path("f")) } == .backendFailure)
        #expect(always.requests.count == quickPolicy.maxAttempts)
    }

    @Test("a Digest challenge switches to Digest; a refused Digest answer is authenticationFailed")
    func digestChallenge() async throws {
        let challenge = #"Digest realm="dav", qop="auth", algorithm=SHA-256, nonce="abc123", opaque="xyz""#
        let server = try LoopbackHTTPServer { request in
            let authorization = request.headers["authorization"] ?? ""
            if authorization.hasPrefix("Digest ") && authorization.contains(#"username="alice""#) && !request.target.hasSuffix("/refused") {
                return .respond(status: 200, body: "digest ok")
            }
            return .respond(status: 401, headers: ["WWW-Authenticate": challenge])
        }
        let webdav = cloud(server)
        #expect(try await webdav.download(from: try path("f")) == Data("digest ok".utf8))
        let sent = server.requests.map { $0.headers["authorization"] ?? "" }
        #expect(sent.count == 2 && sent[0].hasPrefix("Basic ") && sent[1].hasPrefix("Digest "))
        #expect(sent[1].contains(#"uri="/dav/base/f""#) && sent[1].contains("algorithm=SHA-256") && sent[1].contains("nc=00000001"))
        #expect(!sent[1].contains("s3cret"))
        // Later requests use Digest straight away, with the nonce count going up.
        _ = try await webdav.download(from: try path("g"))
        #expect(server.requests.count == 3)
        #expect(server.requests[2].headers["authorization"]?.contains("nc=00000002") == true)
        #expect(await syncErrorCode { _ = try await webdav.download(from: try path("refused")) } == .authenticationFailed)
    }
}

/// Nothing listening: connect is notConnected after the policy's attempts.
@Suite("WebDAV without a server")
struct WebDAVNoServerTests {
    @Test("connect to a closed port is notConnected, with the network error underneath")
    func closedPort() async throws {
        let port = try LoopbackPort.free()
        let cloud = WebDAVCloudFileSystem(baseURL: URL(string: "http://127.0.0.1:\(port)/dav/")!, username: "u", password: "secret-pw",
                                          policy: HTTPRequestPolicy(timeout: .seconds(5), maxAttempts: 2, backoffBase: .milliseconds(10)))
        do {
            try await cloud.connect()
            Issue.record("connect succeeded with nothing listening")
        } catch {
            #expect((error as? SyncError)?.code == .notConnected)
            #expect(!"\(error)".contains("secret-pw"))
        }
        #expect(cloud.transferCounters.requests == 2)
        #expect(cloud.transferCounters.retries == 1)
    }
}

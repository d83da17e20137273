import Foundation
@testable import StrataSyncServers
import Testing

/// Parts checked without a server: Digest against RFC 7616's example, the multistatus
/// parser, the path mapping, the backoff.
@Suite("WebDAV parts")
struct WebDAVUnitTests {
    // RFC 7616 §3.9.1: user Mufasa, password "Circle of Life", GET /dir/index.html.
    static let rfcChallenge = DigestChallenge(realm: "http-auth@example.org", nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v",
                                              opaque: "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", algorithm: .md5, qopAuth: true, stale: false)
    static let rfcClientNonce = "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"

    @Test("Digest responses match RFC 7616's published example (MD5 and SHA-256)")
    func digestRFC7616() {
        var challenge = Self.rfcChallenge
        #expect(challenge.response(username: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html",
                                   nc: "00000001", clientNonce: Self.rfcClientNonce) == "8ca523f5e9506fed4657c9700eebdbec")
        challenge.algorithm = .sha256
        #expect(challenge.response(username: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html",
                                   nc: "00000001", clientNonce: Self.rfcClientNonce) == "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1")
        let header = challenge.authorization(username: "Mufasa", password: "Circle of Life", method: "GET", uri: "/dir/index.html",
                                             nonceCount: 1, clientNonce: Self.rfcClientNonce)
        #expect(header.contains(#"response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1""#))
        #expect(header.contains("nc=00000001") && header.contains("qop=auth") && header.contains(#"opaque="FQhe"#))
    }

    @Test("the RFC's two challenges parse, and SHA-256 is preferred over MD5")
    func digestChallengeParsing() throws {
        let sha = #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
        let md5 = #"Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS""#
        let best = try #require(DigestChallenge.best(in: [md5, sha]))
        #expect(best.algorithm == .sha256 && best.qopAuth && best.realm == "http-auth@example.org")
        #expect(best.nonce == Self.rfcChallenge.nonce && best.opaque == Self.rfcChallenge.opaque)
        #expect(DigestChallenge.best(in: [#"Basic realm="x""#]) == nil)
        #expect(DigestChallenge.best(in: [#"Digest realm="x", nonce="n", qop="auth-int""#]) == nil)
        #expect(DigestChallenge.best(in: [#"Digest realm="x", nonce="n", algorithm=SHA-512-256"#]) == nil)
        let both = try #require(DigestChallenge.best(in: [#"Basic realm="a, b", Digest realm="r", nonce="n", stale=TRUE"#]))
        #expect(both.realm == "r" && both.stale && !both.qopAuth)
    }

    @Test("multistatus: any prefix, default namespace, per-response and per-propstat status")
    func multistatusParsing() throws {
        let xml = """
            <?xml version="1.0"?>
            <multistatus xmlns="DAV:" xmlns:x="urn:other">
              <response><href>/d/</href><propstat><prop><resourcetype><collection/></resourcetype></prop><status>HTTP/1.1 200 OK</status></propstat>
                <propstat><prop><getcontentlength/></prop><status>HTTP/1.1 404 Not Found</status></propstat></response>
              <response><href>/d/f</href><propstat><prop><resourcetype/><getcontentlength>42</getcontentlength><x:collection/></prop><status>HTTP/1.1 200 OK</status></propstat></response>
              <response><href>/d/gone</href><status>HTTP/1.1 404 Not Found</status></response>
            </multistatus>
            """
        let entries = try WebDAVMultiStatus.parse(Data(xml.utf8), path: nil)
        #expect(entries == [WebDAVEntry(href: "/d/", isCollection: true, size: nil, status: 200),
                            WebDAVEntry(href: "/d/f", isCollection: false, size: 42, status: 200),
                            WebDAVEntry(href: "/d/gone", isCollection: false, size: nil, status: 404)])
        let prefixed = #"<a:multistatus xmlns:a="DAV:"><a:response><a:href>/x</a:href><a:propstat><a:prop><a:resourcetype><a:collection/></a:resourcetype></a:prop><a:status>HTTP/1.1 200 OK</a:status></a:propstat></a:response></a:multistatus>"#
        #expect(try WebDAVMultiStatus.parse(Data(prefixed.utf8), path: nil) == [WebDAVEntry(href: "/x", isCollection: true, size: nil, status: 200)])
        #expect(throws: SyncError.self) { try WebDAVMultiStatus.parse(Data("<html><body>login</body></html>".utf8), path: nil) }
    }

    @Test("paths: percent-encoded out, decoded in, and hrefs outside the base refused")
    func pathMapping() throws {
        let paths = WebDAVPaths(baseURL: URL(string: "https://host.example/remote.php/dav/files/al%20ice")!)
        let file = try CloudPath("a b/ü+%")
        #expect(paths.url(for: file).absoluteString == "https://host.example/remote.php/dav/files/al%20ice/a%20b/%C3%BC%2B%25")
        #expect(paths.url(for: try CloudPath("d"), collection: true).absoluteString.hasSuffix("/d/"))
        let request = paths.url(for: file)
        #expect(paths.relativeNames(ofHref: "/remote.php/dav/files/al%20ice/a%20b/%C3%BC%2B%25", answering: request) == ["a b", "ü+%"])
        #expect(paths.relativeNames(ofHref: "https://HOST.example:443/remote.php/dav/files/al%20ice/x", answering: request) == ["x"])
        #expect(paths.relativeNames(ofHref: "/remote.php/dav/files/al%20ice/", answering: request) == [])
        #expect(paths.relativeNames(ofHref: "/remote.php/dav/files/bob/x", answering: request) == nil)
        #expect(paths.relativeNames(ofHref: "/remote.php/dav/files/al%20ice/../bob/x", answering: request) == nil)
        #expect(paths.relativeNames(ofHref: "https://host.example/remote.php/dav/files/al%20ice/%2E%2E/x", answering: request) == nil)
        #expect(paths.relativeNames(ofHref: "http://host.example/remote.php/dav/files/al%20ice/x", answering: request) == nil)
        #expect(paths.relativeNames(ofHref: "https://other.example/remote.php/dav/files/al%20ice/x", answering: request) == nil)
    }

    @Test("backoff doubles up to the cap with jitter, and Retry-After is honoured up to its cap")
    func backoff() {
        let policy = HTTPRequestPolicy(backoffBase: .milliseconds(100), backoffCap: .milliseconds(400), retryAfterCap: .seconds(2))
        for attempt in 2...8 {
            let delay = HTTPBackoff.delay(before: attempt, policy: policy, retryAfter: nil)
            let ceiling = min(0.1 * pow(2, Double(attempt - 2)), 0.4)
            #expect(delay >= ceiling / 2 && delay <= ceiling, "attempt \(attempt)")
        }
        #expect(HTTPBackoff.delay(before: 2, policy: policy, retryAfter: 60) == 2)
        #expect(HTTPBackoff.retryAfter("7") == 7)
        let now = Date(timeIntervalSince1970: 1_000_000)
        #expect(HTTPBackoff.retryAfter("Mon, 12 Jan 1970 13:46:50 GMT", now: now) == 10)
        #expect(HTTPBackoff.retryAfter("soon") == nil)
    }
}

@Suite("WebDAV secrets")
struct WebDAVSecretTests {
    @Test("dump and descriptions of a cloud never show the password")
    func passwordStaysHidden() throws {
        let cloud = WebDAVCloudFileSystem(baseURL: URL(string: "http://127.0.0.1:1/dav/")!, username: "alice", password: "hunter2-secret")
        var dumped = ""
        dump(cloud, to: &dumped)
        #expect(dumped.contains("alice"))
        #expect(!dumped.contains("hunter2-secret"))
        #expect(!String(reflecting: cloud).contains("hunter2-secret"))
        #expect(!"\(cloud.authorizer)".contains("hunter2-secret"))
    }
}

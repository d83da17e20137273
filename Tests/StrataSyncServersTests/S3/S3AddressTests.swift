import Foundation
import Testing
@testable import StrataSyncServers

/// Keys and URLs for both addressings, with and without a key prefix.
@Suite("S3 addressing")
struct S3AddressTests {
    let endpoint = URL(string: "http://127.0.0.1:9000")!

    @Test("path style: /bucket/key, each segment encoded once")
    func pathStyle() throws {
        let address = try S3Address(endpoint: endpoint, bucket: "notes")
        let path = try CloudPath("Main Store/ev$nts/a+b%20é")
        #expect(address.key(for: path) == "Main Store/ev$nts/a+b%20é")
        #expect(address.objectPath(key: address.key(for: path)) == "/notes/Main%20Store/ev%24nts/a%2Bb%2520%C3%A9")
        #expect(address.objectURL(key: "a b")?.absoluteString == "http://127.0.0.1:9000/notes/a%20b")
        #expect(address.bucketPath == "/notes")
        #expect(address.hostHeader == "127.0.0.1:9000")
        #expect(address.directoryPrefix(for: .root) == "")
        #expect(address.directoryPrefix(for: try CloudPath("a/b")) == "a/b/")
    }

    @Test("virtual host: bucket.host/key; the connecting override keeps the Host name")
    func virtualHost() throws {
        let aws = try S3Address(endpoint: URL(string: "https://s3.eu-west-1.amazonaws.com")!, bucket: "notes",
                                addressing: .virtualHost)
        #expect(aws.objectURL(key: "a/b c")?.absoluteString == "https://notes.s3.eu-west-1.amazonaws.com/a/b%20c")
        #expect(aws.hostHeader == "notes.s3.eu-west-1.amazonaws.com")
        #expect(aws.bucketPath == "/")
        let loopback = try S3Address(endpoint: URL(string: "http://s3.strata.test:9000")!, bucket: "notes",
                                     addressing: .virtualHostConnectingTo("127.0.0.1"))
        #expect(loopback.hostHeader == "notes.s3.strata.test:9000")
        #expect(loopback.objectURL(key: "k")?.absoluteString == "http://127.0.0.1:9000/k")
    }

    @Test("a key prefix inside the bucket, trimmed of slashes")
    func prefix() throws {
        let address = try S3Address(endpoint: endpoint, bucket: "notes", prefix: "/team/strata/")
        #expect(address.prefix == "team/strata")
        #expect(address.key(for: .root) == "team/strata")
        #expect(address.key(for: try CloudPath("a")) == "team/strata/a")
        #expect(address.directoryPrefix(for: .root) == "team/strata/")
        #expect(throws: SyncError.self) { try S3Address(endpoint: endpoint, bucket: "notes", prefix: "a/../b") }
    }

    @Test("bad endpoints and bucket names are refused", arguments: [
        ("ftp://127.0.0.1", "notes"), ("http://127.0.0.1", "No"), ("http://127.0.0.1", "UPPER"),
        ("http://127.0.0.1", "-dash"), ("http://127.0.0.1", "under_score"), ("http://127.0.0.1?x=1", "notes"),
    ])
    func refused(endpoint: String, bucket: String) throws {
        let url = try #require(URL(string: endpoint))
        #expect(throws: SyncError.self) { try S3Address(endpoint: url, bucket: bucket) }
    }

    @Test("a dotted bucket cannot be a virtual host over https")
    func dottedBucket() throws {
        let url = try #require(URL(string: "https://s3.amazonaws.com"))
        #expect(throws: SyncError.self) { try S3Address(endpoint: url, bucket: "my.notes", addressing: .virtualHost) }
        _ = try S3Address(endpoint: url, bucket: "my.notes", addressing: .pathStyle)
    }
}

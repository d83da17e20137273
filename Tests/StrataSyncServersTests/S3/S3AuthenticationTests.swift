import Foundation
import Testing
@testable import StrataSyncServers
import StrataTestServers

/// Signatures against a moto server that checks them (IAM authentication on): correctly
/// signed requests of every kind the backend sends are accepted, and wrong keys are typed
/// `authenticationFailed` errors after one request, never retried.
///
/// moto refuses correctly signed requests whose query holds a `/` or whose key holds `$`, `+`,
/// `=` or non-ASCII (see `S3TestServer`), so these tests use plain keys and listings without a
/// delimiter; the signer itself is checked against AWS's vectors in `SigV4SignerTests`.
@Suite("S3 against moto: signatures and credentials")
struct S3AuthenticationTests {
    @Test("every kind of request, correctly signed, is accepted by a server that checks signatures")
    func signedRequestsAccepted() async throws {
        let server = try S3TestServer.sharedAuthenticating()
        let bucket = S3TestServer.uniqueBucketName("auth")
        let cloud = S3Fixture.make(server: server, bucket: bucket)
        try await cloud.createBucket()                               // PUT bucket
        try await cloud.connect()                                    // HEAD bucket
        let client = try cloud.client
        let body = Data("signed body".utf8)
        try await client.putObject(key: "plain", data: body, cloudPath: nil)        // PUT with a payload hash
        try await client.putObject(key: "dir/nested-key_1.bin", data: Data(), cloudPath: nil)
        #expect(try await client.headObject(key: "plain", cloudPath: nil) == body.count)   // HEAD
        #expect(try await client.getObject(key: "plain", maxBytes: 100, cloudPath: nil) == body)  // GET
        let page = try await client.listPage(prefix: "", delimiter: nil, continuationToken: nil, maxKeys: 10, cloudPath: nil)
        #expect(page.objects.map(\.key).sorted() == ["dir/nested-key_1.bin", "plain"])        // GET ?list-type=2
        #expect(try await cloud.fileExists(at: try CloudPath("plain")) == (true, false))
        #expect(try await cloud.download(from: try CloudPath("plain")) == body)
        try await client.deleteObjects(keys: ["dir/nested-key_1.bin"], cloudPath: nil)       // POST ?delete
        try await client.deleteObject(key: "plain", cloudPath: nil)                          // DELETE
        let after = try await client.listPage(prefix: "", delimiter: nil, continuationToken: nil, maxKeys: 10, cloudPath: nil)
        #expect(after.objects.isEmpty)
        #expect(cloud.transferCounters.retries == 0)
    }

    @Test("a wrong secret or key ID is authenticationFailed after one request, not retried",
          arguments: [("right-id", "wrong secret"), ("AKIAWRONGKEYID000000", "right-secret")])
    func wrongKeys(id: String, secret: String) async throws {
        let server = try S3TestServer.sharedAuthenticating()
        let bucket = S3TestServer.uniqueBucketName("authkeys")
        try await S3Fixture.make(server: server, bucket: bucket).createBucket()
        let accessKeyID = id == "right-id" ? server.accessKeyID : id
        let secretAccessKey = secret == "right-secret" ? server.secretAccessKey : secret
        let cloud = S3Fixture.make(server: server, bucket: bucket, accessKeyID: accessKeyID, secretAccessKey: secretAccessKey)
        do {
            try await cloud.connect()
            Issue.record("connect() accepted wrong keys")
        } catch let error as SyncError {
            #expect(error.code == .authenticationFailed)
            #expect(!"\(error)".contains(secretAccessKey) && !"\(error)".contains(server.secretAccessKey))
        }
        #expect(cloud.transferCounters.requests == 1)   // the 403 was not retried
        // A GET (with a body in the error answer) says which key was wrong.
        do {
            _ = try await cloud.download(from: try CloudPath("anything"))
            Issue.record("download accepted wrong keys")
        } catch let error as SyncError {
            #expect(error.code == .authenticationFailed)
            let code = (error.underlying as? S3ServiceError)?.code
            #expect(code == (id == "right-id" ? "SignatureDoesNotMatch" : "InvalidAccessKeyId"))
        }
        #expect(cloud.transferCounters.requests == 2)
    }

    @Test("a missing bucket is notConnected until createBucket (idempotent) makes it; a bad bucket name fails before any request")
    func missingBucket() async throws {
        let server = try S3TestServer.shared()
        let cloud = S3Fixture.make(server: server, bucket: S3TestServer.uniqueBucketName("missing"))
        #expect(await s3ErrorCode { try await cloud.connect() } == .notConnected)
        #expect(await s3ErrorCode { _ = try await cloud.download(from: try CloudPath("f")) } == .notConnected)
        #expect(await s3ErrorCode { _ = try await cloud.contentsOfDirectory(at: .root) } == .notConnected)
        #expect(await s3ErrorCode { _ = try await cloud.fileExists(at: try CloudPath("f")) } == .notConnected)
        #expect(await s3ErrorCode { try await cloud.createDirectory(at: try CloudPath("d")) } == .notConnected)
        // createBucket makes it, and a second call is no error.
        try await cloud.createBucket()
        try await cloud.createBucket()
        try await cloud.connect()

        let bad = S3CloudFileSystem(endpoint: server.endpoint, bucket: "Not_A_Bucket", region: "us-east-1",
                                    accessKeyID: "x", secretAccessKey: "y")
        #expect(await s3ErrorCode { try await bad.connect() } == .notConnected)
        #expect(bad.transferCounters.requests == 0)
    }

    @Test("nothing printed about the file system shows the secret")
    func secretNotPrinted() throws {
        let cloud = S3CloudFileSystem(endpoint: URL(string: "http://127.0.0.1:1")!, bucket: "notes", region: "us-east-1",
                                      accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        #expect(!"\(cloud)".contains("wJalrXUtnFEMI"))
        #expect(!String(reflecting: cloud).contains("wJalrXUtnFEMI"))
    }
}

import Foundation
import Testing
import StrataSyncServers
import StrataTestServers

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

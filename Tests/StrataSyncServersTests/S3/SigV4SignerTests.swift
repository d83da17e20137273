import Foundation
import Testing
@testable import StrataSyncServers

/// Signature Version 4 against published vectors: every case checks the canonical request
/// and the final signature.
@Suite("S3 Signature V4 signing")
struct SigV4SignerTests {
    @Test("AWS's Signature V4 test suite (basic cases)", arguments: SuiteCase.all)
    func suite(_ vector: SuiteCase) {
        let signer = SigV4Signer(credentials: S3Credentials(accessKeyID: SuiteCase.accessKeyID,
                                                            secretAccessKey: SuiteCase.secretAccessKey),
                                 region: "us-east-1", service: "service")
        let query: [(name: String, value: String)] = vector.query.isEmpty ? [] : vector.query
            .split(separator: "&")
            .map { pair in
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
            }
        func request(_ headers: [(String, String)]) -> SigV4Request {
            SigV4Request(method: vector.method, encodedPath: S3URIEncoding.encodePath(vector.path),
                         query: query, headers: headers.map { (name: $0.0, value: $0.1) },
                         payloadHash: SigV4Signer.payloadHash(Data(vector.body.utf8)))
        }
        let signed = signer.sign(request(vector.headers), at: SuiteCase.date)
        #expect(signed.canonicalRequest == vector.canonicalRequest, "\(vector.name)")
        let authzSigned = vector.authzHeaders.map { signer.sign(request($0), at: SuiteCase.date) } ?? signed
        #expect(authzSigned.stringToSign == """
            AWS4-HMAC-SHA256
            20150830T123600Z
            20150830/us-east-1/service/aws4_request
            \(vector.stringToSignHash)
            """, "\(vector.name)")
        #expect(authzSigned.signature == vector.signature, "\(vector.name)")
        #expect(authzSigned.authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders="))
        #expect(authzSigned.authorization.hasSuffix("Signature=\(vector.signature)"))
    }

    // The S3 examples of the Amazon S3 API Reference, "Signature calculations for the
    // Authorization header: transferring payload in a single chunk (AWS Signature Version 4)"
    // (examplebucket, AKIAIOSFODNN7EXAMPLE, 2013-05-24T00:00:00Z, us-east-1, service s3).
    static let s3Signer = SigV4Signer(
        credentials: S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                                   secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
        region: "us-east-1", service: "s3")
    static let s3Date = Date(timeIntervalSince1970: 1_369_353_600)

    static func s3Headers(_ extra: [(name: String, value: String)], payloadHash: String) -> [(name: String, value: String)] {
        [("Host", "examplebucket.s3.amazonaws.com"), ("x-amz-date", "20130524T000000Z"),
         ("x-amz-content-sha256", payloadHash)] + extra
    }

    @Test("S3 documentation: GET object with a Range header")
    func s3GetObject() {
        let hash = SigV4Signer.emptyPayloadHash
        let request = SigV4Request(method: "GET", encodedPath: S3URIEncoding.encodePath("/test.txt"), query: [],
                                   headers: Self.s3Headers([("Range", "bytes=0-9")], payloadHash: hash), payloadHash: hash)
        let signed = Self.s3Signer.sign(request, at: Self.s3Date)
        #expect(signed.canonicalRequest == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signed.stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(signed.signature == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
        #expect(signed.authorization == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
            + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test("S3 documentation: PUT object (a key with `$`, a body, a Date and a storage-class header)")
    func s3PutObject() {
        let hash = SigV4Signer.payloadHash(Data("Welcome to Amazon S3.".utf8))
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let request = SigV4Request(
            method: "PUT", encodedPath: "/" + S3URIEncoding.encodePath("test$file.text"), query: [],
            headers: Self.s3Headers([("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("x-amz-storage-class", "REDUCED_REDUNDANCY")],
                                    payloadHash: hash),
            payloadHash: hash)
        let signed = Self.s3Signer.sign(request, at: Self.s3Date)
        #expect(signed.canonicalRequest == """
            PUT
            /test%24file.text

            date:Fri, 24 May 2013 00:00:00 GMT
            host:examplebucket.s3.amazonaws.com
            x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072
            x-amz-date:20130524T000000Z
            x-amz-storage-class:REDUCED_REDUNDANCY

            date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class
            44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072
            """)
        #expect(signed.stringToSign.hasSuffix("\n9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d"))
        #expect(signed.signature == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test("S3 documentation: GET bucket lifecycle (a query flag without a value)")
    func s3GetLifecycle() {
        let hash = SigV4Signer.emptyPayloadHash
        let request = SigV4Request(method: "GET", encodedPath: "/", query: [("lifecycle", "")],
                                   headers: Self.s3Headers([], payloadHash: hash), payloadHash: hash)
        let signed = Self.s3Signer.sign(request, at: Self.s3Date)
        #expect(signed.canonicalRequest == """
            GET
            /
            lifecycle=
            host:examplebucket.s3.amazonaws.com
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signed.stringToSign.hasSuffix("\n9766c798316ff2757b517bc739a67f6213b4ab36dd5da2f94eaebf79c77395ca"))
        #expect(signed.signature == "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test("S3 documentation: GET bucket (list objects), query sorted")
    func s3ListObjects() {
        let hash = SigV4Signer.emptyPayloadHash
        // Given out of order: the canonical query sorts them.
        let request = SigV4Request(method: "GET", encodedPath: "/", query: [("prefix", "J"), ("max-keys", "2")],
                                   headers: Self.s3Headers([], payloadHash: hash), payloadHash: hash)
        let signed = Self.s3Signer.sign(request, at: Self.s3Date)
        #expect(signed.canonicalRequest == """
            GET
            /
            max-keys=2&prefix=J
            host:examplebucket.s3.amazonaws.com
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signed.stringToSign.hasSuffix("\ndf57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7"))
        #expect(signed.signature == "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
    }

    @Test("URI encoding: unreserved kept, everything else %XX upper case, each path segment once")
    func encoding() {
        #expect(S3URIEncoding.encode("-._~AZaz09") == "-._~AZaz09")
        #expect(S3URIEncoding.encode("a b+c/d=é%") == "a%20b%2Bc%2Fd%3D%C3%A9%25")
        #expect(S3URIEncoding.encodePath("dir name/a%20b/ü") == "dir%20name/a%2520b/%C3%BC")
        #expect(SigV4Signer.amzDate(Self.s3Date) == "20130524T000000Z")
    }

    @Test("the secret never shows in a description or in what the signer returns")
    func secretStaysSecret() {
        let keys = S3Credentials(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
        #expect(!"\(keys)".contains("wJalr") && !String(reflecting: keys).contains("wJalr"))
        let hash = SigV4Signer.emptyPayloadHash
        let signed = Self.s3Signer.sign(SigV4Request(method: "GET", encodedPath: "/", query: [],
                                                     headers: Self.s3Headers([], payloadHash: hash), payloadHash: hash),
                                        at: Self.s3Date)
        for text in [signed.canonicalRequest, signed.stringToSign, signed.authorization] {
            #expect(!text.contains("wJalr"))
        }
    }
}

import Foundation
import Testing
@testable import StrataSyncServers

/// The ListObjectsV2 parser and the error-answer mapping, on bodies shaped as S3 and moto
/// write them.
@Suite("S3 response parsing")
struct S3ResponseParsingTests {
    @Test("a truncated ListObjectsV2 page: objects, common prefixes, continuation token")
    func truncatedPage() throws {
        let body = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
              <Name>notes</Name><Prefix>store/</Prefix><MaxKeys>2</MaxKeys><Delimiter>/</Delimiter>
              <IsTruncated>true</IsTruncated>
              <Contents><Key>store/</Key><Size>0</Size><ETag>"d41d8cd98f00b204e9800998ecf8427e"</ETag></Contents>
              <Contents><Key>store/a &amp; b.bin</Key><LastModified>2026-01-01T00:00:00.000Z</LastModified><Size>1234</Size></Contents>
              <CommonPrefixes><Prefix>store/events/</Prefix></CommonPrefixes>
              <KeyCount>3</KeyCount>
              <NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
            </ListBucketResult>
            """.utf8)
        let page = try S3ListPage(parsing: body)
        #expect(page.objects == [.init(key: "store/", size: 0), .init(key: "store/a & b.bin", size: 1234)])
        #expect(page.commonPrefixes == ["store/events/"])
        #expect(page.isTruncated)
        #expect(page.nextContinuationToken == "1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=")
    }

    @Test("the last page, URL-encoded keys (`+` and `%20` both a space)")
    func lastPageEncoded() throws {
        let body = Data("""
            <ListBucketResult><IsTruncated>false</IsTruncated><EncodingType>url</EncodingType>
            <Contents><Key>d/a+b%2Bc</Key><Size>7</Size></Contents>
            <Contents><Key>d/%C3%A9t%C3%A9%20x</Key><Size>0</Size></Contents>
            <CommonPrefixes><Prefix>d/sub%20dir/</Prefix></CommonPrefixes></ListBucketResult>
            """.utf8)
        let page = try S3ListPage(parsing: body)
        #expect(page.objects.map(\.key) == ["d/a b+c", "d/été x"])
        #expect(page.commonPrefixes == ["d/sub dir/"])
        #expect(!page.isTruncated && page.nextContinuationToken == nil)
    }

    @Test("bodies that are not listings are typed errors, never crashes")
    func brokenListings() {
        let bodies = [
            "", "not xml", "<Error><Code>NoSuchBucket</Code></Error>",
            "<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>",
            "<ListBucketResult><Contents><Key>a</Key><Size>-1</Size></Contents></ListBucketResult>",
            "<ListBucketResult><Contents><Size>1</Size></Contents></ListBucketResult>",
            "<ListBucketResult><Contents><Key>a</Key><Size>12x</Size></Contents>",
            String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100),
        ]
        for body in bodies {
            #expect(throws: SyncError.self, "\(body.prefix(40))") { try S3ListPage(parsing: Data(body.utf8)) }
        }
    }

    @Test("error answers map to typed codes", arguments: [
        ("NoSuchKey", 404, SyncError.Code.notFound),
        ("NoSuchBucket", 404, .notConnected),
        ("AccessDenied", 403, .authenticationFailed),
        ("SignatureDoesNotMatch", 403, .authenticationFailed),
        ("InvalidAccessKeyId", 403, .authenticationFailed),
        ("SlowDown", 503, .backendFailure),
        ("InternalError", 500, .backendFailure),
    ])
    func errorCodes(code: String, status: Int, expected: SyncError.Code) {
        let body = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>\(code)</Code><Message>Something about \(code)</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>
            """.utf8)
        let error = S3ServiceError(status: status, body: body)
        #expect(error.code == code && error.requestID == "4442587FB7D0A2F9")
        let mapped = error.syncError(path: "a/b")
        #expect(mapped.code == expected)
        #expect(mapped.path == "a/b" && mapped.message.contains(code))
        #expect(error.isRetryable == (code == "SlowDown" || code == "InternalError"))
    }

    @Test("answers without a body map by status; moto's ErrorResponse wrapper is read too")
    func statusOnly() {
        #expect(S3ServiceError(status: 404, body: Data()).syncError().code == .notFound)
        #expect(S3ServiceError(status: 403, body: Data()).syncError().code == .authenticationFailed)
        #expect(S3ServiceError(status: 401, body: Data("garbage".utf8)).syncError().code == .authenticationFailed)
        #expect(S3ServiceError(status: 500, body: Data()).syncError().code == .backendFailure)
        #expect(S3ServiceError(status: 429, body: Data()).isRetryable)
        #expect(!S3ServiceError(status: 400, body: Data()).isRetryable)
        let wrapped = S3ServiceError(status: 403, body: Data(
            "<ErrorResponse><Error><Code>InvalidClientTokenId</Code><Message>bad</Message></Error></ErrorResponse>".utf8))
        #expect(wrapped.code == "InvalidClientTokenId" && wrapped.syncError().code == .authenticationFailed)
    }
}

import Foundation
import Testing
import StrataSyncServers
import StrataTestServers

/// What S3 adds to the CloudFileSystem contract. The contract itself runs against moto from
/// `CloudFileSystemConformanceTests` (StrataSyncTests), for each way of addressing a bucket
/// (`Backend.s3`, `.s3Bucket`, `.s3VirtualHost`); signatures are checked in `S3AuthenticationTests`.
@Suite("S3 against moto: beyond the CloudFileSystem contract")
struct S3ContractTests {
    private func path(_ text: String) throws -> CloudPath { try CloudPath(text) }

    @Test("a download above maxFileSize is refused from its Content-Length", arguments: [S3Flavor.pathStyle])
    func downloadTooLarge(_ flavor: S3Flavor) async throws {
        let writer = try await S3Fixture.make(flavor)
        let big = try path("big.bin")
        try await writer.upload(Data(count: 5_000), to: big)
        // A reader with a smaller limit on the same bucket.
        let server = try S3TestServer.shared()
        let bucket = try #require(writer.address?.bucket)
        let reader = S3Fixture.make(server: server, bucket: bucket, limits: CloudLimits(maxFileSize: 4_999))
        #expect(await s3ErrorCode { _ = try await reader.download(from: big) } == .tooLarge)
        #expect(reader.transferCounters.bytesReceived < 5_000)
        #expect(try await writer.download(from: big).count == 5_000)
    }
}

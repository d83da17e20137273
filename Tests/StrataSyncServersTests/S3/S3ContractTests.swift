import Foundation
import Testing
import StrataSyncServers
import StrataTestServers

/// The CloudFileSystem contract (the rules of `CloudFileSystemConformanceTests`) against moto,
/// for each way of addressing a bucket (signatures are checked in `S3AuthenticationTests`).
@Suite("S3 against moto: the CloudFileSystem contract")
struct S3ContractTests {
    private func path(_ text: String) throws -> CloudPath { try CloudPath(text) }

    @Test("directories: created with parents, idempotent, listed, a file in the way is refused", arguments: S3Flavor.allCases)
    func directories(_ flavor: S3Flavor) async throws {
        let cloud = try await S3Fixture.make(flavor)
        try await cloud.connect()
        let events = try path("MainStore/events")
        try await cloud.createDirectory(at: events)
        try await cloud.createDirectory(at: events)  // again: no error
        #expect(try await cloud.fileExists(at: events) == (true, true))
        #expect(try await cloud.fileExists(at: try path("MainStore")) == (true, true))
        #expect(try await cloud.fileExists(at: try path("MainStore/other")) == (false, false))
        let top = try await cloud.contentsOfDirectory(at: .root)
        #expect(top.map(\.name.rawValue) == ["MainStore"] && top.allSatisfy(\.isDirectory))
        #expect(try await cloud.contentsOfDirectory(at: events).isEmpty)  // an empty directory exists

        let file = try events.appending("file")
        try await cloud.upload(Data("x".utf8), to: file)
        #expect(await s3ErrorCode { try await cloud.createDirectory(at: file) } == .typeMismatch)
        #expect(await s3ErrorCode { try await cloud.createDirectory(at: try file.appending("below")) } == .typeMismatch)
        let below = try file.appending("below")
        #expect(try await cloud.fileExists(at: below) == (false, false))
        #expect(await s3ErrorCode { _ = try await cloud.download(from: below) } == .notFound)
        #expect(await s3ErrorCode { try await cloud.upload(Data(), to: below) } == .notFound)
        #expect(await s3ErrorCode { _ = try await cloud.contentsOfDirectory(at: file) } == .typeMismatch)
        #expect(await s3ErrorCode { _ = try await cloud.contentsOfDirectory(at: try path("missing")) } == .notFound)
    }

    @Test("files: upload, replace, download, sizes in listings", arguments: S3Flavor.allCases)
    func files(_ flavor: S3Flavor) async throws {
        let cloud = try await S3Fixture.make(flavor)
        let dir = try path("data")
        try await cloud.createDirectory(at: dir)
        let a = try dir.appending("a.bin"), b = try dir.appending("b.bin")
        let bytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await cloud.upload(bytes, to: a)
        try await cloud.upload(Data(), to: b)
        #expect(try await cloud.download(from: a) == bytes)
        #expect(try await cloud.download(from: b) == Data())
        #expect(try await cloud.fileExists(at: a) == (true, false))
        try await cloud.upload(Data("replaced".utf8), to: a)
        #expect(try await cloud.download(from: a) == Data("replaced".utf8))

        let listing = try await cloud.contentsOfDirectory(at: dir).sorted { $0.name < $1.name }
        #expect(listing == [CloudItem(name: try CloudName("a.bin"), size: 8, isDirectory: false),
                            CloudItem(name: try CloudName("b.bin"), size: 0, isDirectory: false)])

        #expect(await s3ErrorCode { _ = try await cloud.download(from: try dir.appending("none")) } == .notFound)
        #expect(await s3ErrorCode { _ = try await cloud.download(from: dir) } == .typeMismatch)
        #expect(await s3ErrorCode { try await cloud.upload(Data(), to: try path("no-parent/f")) } == .notFound)
        #expect(await s3ErrorCode { try await cloud.upload(Data(), to: dir) } == .typeMismatch)
        #expect(await s3ErrorCode { try await cloud.upload(Data(), to: .root) } == .unsafeName)
    }

    @Test("removal: idempotent, recursive, never the root", arguments: S3Flavor.allCases)
    func removal(_ flavor: S3Flavor) async throws {
        let cloud = try await S3Fixture.make(flavor)
        let deep = try path("a/b/c")
        try await cloud.createDirectory(at: deep)
        try await cloud.upload(Data("1".utf8), to: try deep.appending("f"))
        try await cloud.upload(Data("2".utf8), to: try path("a/keep"))
        try await cloud.removeItem(at: try path("a/b"))
        #expect(try await cloud.fileExists(at: deep) == (false, false))
        #expect(try await cloud.fileExists(at: try path("a/b")) == (false, false))
        #expect(try await cloud.download(from: try path("a/keep")) == Data("2".utf8))
        try await cloud.removeItem(at: try path("a/b"))          // missing: no error
        try await cloud.removeItem(at: try path("nowhere/x"))    // missing parent: no error
        try await cloud.removeItem(at: try path("a/keep"))
        #expect(try await cloud.contentsOfDirectory(at: try path("a")).isEmpty)
        #expect(await s3ErrorCode { try await cloud.removeItem(at: .root) } == .unsafeName)
        try await cloud.createDirectory(at: deep)
        #expect(try await cloud.fileExists(at: deep) == (true, true))
    }

    @Test("limits: too-large files and too-long listings are typed errors", arguments: S3Flavor.allCases)
    func limits(_ flavor: S3Flavor) async throws {
        let cloud = try await S3Fixture.make(flavor, limits: CloudLimits(maxFileSize: 100, maxListingCount: 20))
        let dir = try path("d")
        try await cloud.createDirectory(at: dir)
        try await cloud.upload(Data(count: 100), to: try dir.appending("exact"))
        #expect(await s3ErrorCode { try await cloud.upload(Data(count: 101), to: try dir.appending("big")) } == .tooLarge)
        #expect(try await cloud.fileExists(at: try dir.appending("big")) == (false, false))
        for index in 1..<20 { try await cloud.upload(Data(), to: try dir.appending("f\(index)")) }
        #expect(try await cloud.contentsOfDirectory(at: dir).count == 20)
        try await cloud.upload(Data(), to: try dir.appending("f20"))
        #expect(await s3ErrorCode { _ = try await cloud.contentsOfDirectory(at: dir) } == .listingTooLong)
    }

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

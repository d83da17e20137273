import Foundation
import Testing
@testable import StrataSyncServers
import StrataTestServers

/// Listings that span pages, removal of large directories, names that need encoding, and the
/// two addressings seeing the same bucket.
@Suite("S3 against moto: paging, names, addressing")
struct S3ListingTests {
    /// Uploads `count` empty files `f0000…` into `directory`, eight at a time.
    private func fill(_ cloud: S3CloudFileSystem, _ directory: CloudPath, count: Int) async throws {
        let client = try cloud.client
        let prefix = client.address.directoryPrefix(for: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for start in stride(from: 0, to: count, by: count / 8 + 1) {
                group.addTask {
                    for index in start..<min(count, start + count / 8 + 1) {
                        try await client.putObject(key: prefix + String(format: "f%04d", index), data: Data([UInt8(index % 256)]), cloudPath: nil)
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("a listing of 1 053 entries pages through continuation tokens (100 a page, and S3's own 1 000)")
    func paging() async throws {
        var cloud = try await S3Fixture.make(.pathStyle)
        let events = try CloudPath("events")
        try await cloud.createDirectory(at: events)
        try await fill(cloud, events, count: 1_050)
        for sub in ["sub1", "sub2", "sub3"] { try await cloud.createDirectory(at: try events.appending(sub)) }

        cloud.pageSize = 100
        var before = cloud.transferCounters.requests
        let listing = try await cloud.contentsOfDirectory(at: events)
        #expect(cloud.transferCounters.requests - before == 11)   // ⌈1 053 / 100⌉ pages
        #expect(listing.count == 1_053)
        #expect(Set(listing.map(\.name.rawValue)).count == 1_053)
        #expect(listing.filter(\.isDirectory).map(\.name.rawValue).sorted() == ["sub1", "sub2", "sub3"])
        #expect(listing.first { $0.name.rawValue == "f1049" }?.size == 1)

        cloud.pageSize = 1_000
        before = cloud.transferCounters.requests
        #expect(try await cloud.contentsOfDirectory(at: events).count == 1_053)
        #expect(cloud.transferCounters.requests - before == 2)

        // Removal pages too: 1 050 files, 3 markers and the directory's own marker.
        cloud.pageSize = 400
        try await cloud.removeItem(at: events)
        #expect(try await cloud.fileExists(at: events) == (false, false))
        #expect(try await cloud.contentsOfDirectory(at: .root).isEmpty)
    }

    @Test("the listing limit stops paging early")
    func listingLimitAcrossPages() async throws {
        var cloud = try await S3Fixture.make(.prefixed, limits: CloudLimits(maxListingCount: 150))
        let dir = try CloudPath("d")
        try await cloud.createDirectory(at: dir)
        try await fill(cloud, dir, count: 300)
        cloud.pageSize = 100
        let before = cloud.transferCounters.requests
        #expect(await s3ErrorCode { _ = try await cloud.contentsOfDirectory(at: dir) } == .listingTooLong)
        #expect(cloud.transferCounters.requests - before == 2)
    }

    @Test("names S3 must encode round-trip through keys, URLs and listings")
    func encodedNames() async throws {
        let cloud = try await S3Fixture.make(.pathStyle)
        let names = ["a b", "ev$nt+s=1", "été ü", "100%", "x&y", "q?uery#frag", "~tilde", "semi;colon", "quote'\"", "a+b%20c", "日本"]
        let dir = try CloudPath("dir with spaces")
        try await cloud.createDirectory(at: dir)
        for (index, name) in names.enumerated() {
            try await cloud.upload(Data(name.utf8) + Data([UInt8(index)]), to: try dir.appending(name))
        }
        let listed = try await cloud.contentsOfDirectory(at: dir)
        #expect(Set(listed.map(\.name.rawValue)) == Set(names))
        for (index, name) in names.enumerated() {
            #expect(try await cloud.download(from: try dir.appending(name)) == Data(name.utf8) + Data([UInt8(index)]))
            #expect(try await cloud.fileExists(at: try dir.appending(name)) == (true, false))
        }
        #expect(try await cloud.contentsOfDirectory(at: .root).map(\.name.rawValue) == ["dir with spaces"])
        try await cloud.removeItem(at: try dir.appending("été ü"))
        #expect(try await cloud.contentsOfDirectory(at: dir).count == names.count - 1)
    }

    @Test("keys no CloudName can hold are left out of listings")
    func unsafeKeysSkipped() async throws {
        let cloud = try await S3Fixture.make(.pathStyle)
        let client = try cloud.client
        try await cloud.createDirectory(at: try CloudPath("d"))
        for key in ["d/ok", "d/..", "d/trailing.", "d/a\\b", "d//double", "d/ lead"] {
            try await client.putObject(key: key, data: Data(), cloudPath: nil)
        }
        let names = try await cloud.contentsOfDirectory(at: try CloudPath("d")).map(\.name.rawValue)
        #expect(names == ["ok"])
    }

    @Test("virtual-host and path-style addressing see the same bucket")
    func addressingsAgree() async throws {
        let virtual = try await S3Fixture.make(.virtualHost)
        let bucket = try #require(virtual.address?.bucket)
        #expect(virtual.address?.hostHeader.hasPrefix("\(bucket).\(S3Fixture.virtualHostName):") == true)
        let pathStyle = S3Fixture.make(server: try S3TestServer.shared(), bucket: bucket)
        try await virtual.createDirectory(at: try CloudPath("v"))
        try await virtual.upload(Data("via host".utf8), to: try CloudPath("v/file"))
        #expect(try await pathStyle.download(from: try CloudPath("v/file")) == Data("via host".utf8))
        try await pathStyle.upload(Data("via path".utf8), to: try CloudPath("v/other"))
        #expect(try await virtual.contentsOfDirectory(at: try CloudPath("v")).map(\.name.rawValue).sorted() == ["file", "other"])
        #expect(try await virtual.download(from: try CloudPath("v/other")) == Data("via path".utf8))
    }
}

import Foundation
import Testing
@testable import StrataSync

/// One body per contract rule, run against every backend.
@Suite("CloudFileSystem contract")
struct CloudFileSystemConformanceTests {
    @Test("directories: created with parents, idempotent, listed, a file in the way is refused", arguments: Backend.allCases)
    func directories(_ backend: Backend) async throws {
        let (cloud, folder) = try await backend.make()
        _ = folder
        try await cloud.connect()
        let events = try path("MainStore/events")
        try await cloud.createDirectory(at: events)
        try await cloud.createDirectory(at: events)  // again: no error
        #expect(try await cloud.fileExists(at: events) == (true, true))
        #expect(try await cloud.fileExists(at: try path("MainStore")) == (true, true))
        #expect(try await cloud.fileExists(at: try path("MainStore/other")) == (false, false))
        #expect(try await cloud.contentsOfDirectory(at: events).isEmpty)  // an empty directory exists
        let top = try await cloud.contentsOfDirectory(at: .root)
        #expect(top.map(\.name.rawValue) == ["MainStore"] && top.allSatisfy(\.isDirectory))

        let file = try events.appending("file")
        try await cloud.upload(Data("x".utf8), to: file)
        #expect(await syncErrorCode { try await cloud.createDirectory(at: file) } == .typeMismatch)
        #expect(await syncErrorCode { try await cloud.createDirectory(at: try file.appending("below")) } == .typeMismatch)
        let below = try file.appending("below")
        #expect(try await cloud.fileExists(at: below) == (false, false))
        #expect(await syncErrorCode { _ = try await cloud.download(from: below) } == .notFound)
        #expect(await syncErrorCode { try await cloud.upload(Data(), to: below) } == .notFound)
        #expect(await syncErrorCode { _ = try await cloud.contentsOfDirectory(at: file) } == .typeMismatch)
        #expect(await syncErrorCode { _ = try await cloud.contentsOfDirectory(at: try path("missing")) } == .notFound)
    }

    @Test("files: upload, replace, download, sizes in listings", arguments: Backend.allCases)
    func files(_ backend: Backend) async throws {
        let (cloud, folder) = try await backend.make()
        _ = folder
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

        #expect(await syncErrorCode { _ = try await cloud.download(from: try dir.appending("none")) } == .notFound)
        #expect(await syncErrorCode { _ = try await cloud.download(from: dir) } == .typeMismatch)
        #expect(await syncErrorCode { try await cloud.upload(Data(), to: try path("no-parent/f")) } == .notFound)
        #expect(await syncErrorCode { try await cloud.upload(Data(), to: dir) } == .typeMismatch)
        #expect(await syncErrorCode { try await cloud.upload(Data(), to: .root) } == .unsafeName)
    }

    @Test("removal: idempotent, recursive, never the root", arguments: Backend.allCases)
    func removal(_ backend: Backend) async throws {
        let (cloud, folder) = try await backend.make()
        _ = folder
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
        #expect(await syncErrorCode { try await cloud.removeItem(at: .root) } == .unsafeName)
        // Re-creating after removal works.
        try await cloud.createDirectory(at: deep)
        #expect(try await cloud.fileExists(at: deep) == (true, true))
    }

    @Test("limits: too-large files and too-long listings are typed errors", arguments: Backend.allCases)
    func limits(_ backend: Backend) async throws {
        let (cloud, folder) = try await backend.make(limits: CloudLimits(maxFileSize: 100, maxListingCount: 20))
        _ = folder
        let dir = try path("d")
        try await cloud.createDirectory(at: dir)
        try await cloud.upload(Data(count: 100), to: try dir.appending("exact"))
        #expect(await syncErrorCode { try await cloud.upload(Data(count: 101), to: try dir.appending("big")) } == .tooLarge)
        #expect(try await cloud.fileExists(at: try dir.appending("big")) == (false, false))
        for index in 1..<20 { try await cloud.upload(Data(), to: try dir.appending("f\(index)")) }
        #expect(try await cloud.contentsOfDirectory(at: dir).count == 20)
        try await cloud.upload(Data(), to: try dir.appending("f20"))
        #expect(await syncErrorCode { _ = try await cloud.contentsOfDirectory(at: dir) } == .listingTooLong)
    }

    @Test("local files: upload from and download to a local file", arguments: Backend.allCases)
    func localFiles(_ backend: Backend) async throws {
        let (cloud, folder) = try await backend.make(limits: CloudLimits(maxFileSize: 1_000))
        _ = folder
        let local = TemporaryFolder("local")
        let source = local.url.appendingPathComponent("source.bin")
        let bytes = Data((0..<1_000).map { UInt8(truncatingIfNeeded: $0) })
        try bytes.write(to: source)
        let target = try path("blob")
        try await cloud.uploadLocalFile(at: source, to: target)
        let copy = local.url.appendingPathComponent("copy.bin")
        try await cloud.download(from: target, toLocalFile: copy)
        #expect(try Data(contentsOf: copy) == bytes)

        try Data(count: 1_001).write(to: source)
        #expect(await syncErrorCode { try await cloud.uploadLocalFile(at: source, to: target) } == .tooLarge)
        #expect(await syncErrorCode { try await cloud.uploadLocalFile(at: local.url.appendingPathComponent("none"), to: target) } == .notFound)
        #expect(try await cloud.download(from: target) == bytes)  // the failed uploads left it alone
    }
}

import Foundation
import Testing
@testable import StrataSync
#if canImport(Glibc)
import Glibc
#endif

@Suite("LocalCloudFileSystem: a folder that cannot be escaped")
struct LocalCloudFileSystemTests {
    /// Creates a file whose name is the raw bytes given (which need not be UTF-8).
    private func createRawFile(in directory: String, name: [UInt8]) {
        let bytes = Array(directory.utf8) + [UInt8(ascii: "/")] + name + [0]
        let descriptor = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) }
        }
        #expect(descriptor >= 0, "could not create the raw file \(name)")
        close(descriptor)
    }

    @Test("connect fails with notConnected when the root is missing or a file")
    func connect() async throws {
        let folder = TemporaryFolder()
        try await LocalCloudFileSystem(rootDirectory: folder.url).connect()
        let missing = LocalCloudFileSystem(rootDirectory: folder.url.appendingPathComponent("missing"))
        #expect(await syncErrorCode { try await missing.connect() } == .notConnected)
        #expect(await syncErrorCode { _ = try await missing.contentsOfDirectory(at: .root) } == .notConnected)
        let file = folder.url.appendingPathComponent("file")
        try Data().write(to: file)
        #expect(await syncErrorCode { try await LocalCloudFileSystem(rootDirectory: file).connect() } == .notConnected)
    }

    @Test("listings leave out hostile names, names that are not UTF-8, and temporary uploads")
    func hostileNamesInListings() async throws {
        let folder = TemporaryFolder()
        let cloud = LocalCloudFileSystem(rootDirectory: folder.url)
        for name in ["line\nbreak", "back\\slash", "rtl\u{202E}txt.exe", "trailing.", "ctl\u{1}"] {
            createRawFile(in: folder.path, name: Array(name.utf8))
        }
        createRawFile(in: folder.path, name: [0x66, 0xFF, 0xFE, 0x66])  // not UTF-8
        createRawFile(in: folder.path, name: Array("\(LocalCloudFileSystem.temporaryPrefix)half".utf8))
        try await cloud.upload(Data("ok".utf8), to: try path("good"))
        let listed = try await cloud.contentsOfDirectory(at: .root).map(\.name.rawValue)
        #expect(listed == ["good"])
        // The hostile files are still on disk: they were skipped, not deleted.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 8)
    }

    @Test("a symbolic link to outside the root is refused for every operation; removing it removes only the link")
    func escapingLinks() async throws {
        let folder = TemporaryFolder(), outside = TemporaryFolder("outside")
        let secret = outside.url.appendingPathComponent("secret")
        try Data("secret".utf8).write(to: secret)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/escape", withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/passwd", withDestinationPath: secret.path)
        let cloud = LocalCloudFileSystem(rootDirectory: folder.url)

        #expect(try await cloud.contentsOfDirectory(at: .root).isEmpty)
        #expect(await syncErrorCode { _ = try await cloud.contentsOfDirectory(at: try path("escape")) } == .unsafeName)
        #expect(await syncErrorCode { _ = try await cloud.download(from: try path("escape/secret")) } == .unsafeName)
        #expect(await syncErrorCode { _ = try await cloud.download(from: try path("passwd")) } == .unsafeName)
        #expect(await syncErrorCode { _ = try await cloud.fileExists(at: try path("escape")) } == .unsafeName)
        #expect(await syncErrorCode { try await cloud.createDirectory(at: try path("escape/new")) } == .unsafeName)
        #expect(await syncErrorCode { try await cloud.upload(Data("x".utf8), to: try path("escape/planted")) } == .unsafeName)
        #expect(await syncErrorCode { try await cloud.upload(Data("x".utf8), to: try path("passwd")) } == .unsafeName)
        #expect(await syncErrorCode { try await cloud.removeItem(at: try path("escape/secret")) } == .unsafeName)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["secret"])

        try await cloud.removeItem(at: try path("escape"))
        try await cloud.removeItem(at: try path("passwd"))
        #expect(try Data(contentsOf: secret) == Data("secret".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
    }

    @Test("links that stay inside the root work; dangling links are refused")
    func insideLinks() async throws {
        let folder = TemporaryFolder()
        let cloud = LocalCloudFileSystem(rootDirectory: folder.url)
        try await cloud.createDirectory(at: try path("real/dir"))
        try await cloud.upload(Data("a".utf8), to: try path("real/dir/a"))
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/alias", withDestinationPath: folder.path + "/real/dir")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/dangling", withDestinationPath: folder.path + "/nothing")
        #expect(try await cloud.download(from: try path("alias/a")) == Data("a".utf8))
        #expect(try await cloud.contentsOfDirectory(at: try path("alias")).map(\.name.rawValue) == ["a"])
        let top = try await cloud.contentsOfDirectory(at: .root).sorted { $0.name < $1.name }
        #expect(top.map(\.name.rawValue) == ["alias", "real"] && top.allSatisfy(\.isDirectory))
        #expect(await syncErrorCode { _ = try await cloud.download(from: try path("dangling")) } == .unsafeName)
    }

    @Test("a file far above the limit is refused before it is read")
    func hugeSparseFile() async throws {
        let folder = TemporaryFolder()
        let huge = folder.path + "/huge"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, 1 << 40) == 0)  // a 1 TiB sparse file: reading it would exhaust memory
        let cloud = LocalCloudFileSystem(rootDirectory: folder.url)
        #expect(try await cloud.contentsOfDirectory(at: .root).first?.size == 1 << 40)
        #expect(await syncErrorCode { _ = try await cloud.download(from: try path("huge")) } == .tooLarge)
    }

    @Test("uploads are whole: a reader racing a writer sees one version or the other, and no temporary file stays")
    func atomicUploads() async throws {
        let folder = TemporaryFolder()
        let cloud = LocalCloudFileSystem(rootDirectory: folder.url)
        let target = try path("shared")
        let first = Data(repeating: 1, count: 1 << 20), second = Data(repeating: 2, count: 1 << 20)
        try await cloud.upload(first, to: target)
        let torn = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for round in 0..<40 { try await cloud.upload(round.isMultiple(of: 2) ? second : first, to: target) }
                return 0
            }
            group.addTask {
                var torn = 0
                for _ in 0..<200 {
                    let data = try await cloud.download(from: target)
                    if data != first && data != second { torn += 1 }
                }
                return torn
            }
            return try await group.reduce(0, +)
        }
        #expect(torn == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["shared"])
    }
}

@Suite("LocalCloudFileSystem: stale temporary uploads")
struct LocalCloudFileSystemCleanupTests {
    @Test("old temporary uploads are removed; young ones and real files are kept")
    func staleUploads() async throws {
        let folder = TemporaryFolder()
        let cloud = LocalCloudFileSystem(rootDirectory: folder.url)
        try await cloud.upload(Data("real".utf8), to: try path("real"))
        let old = folder.path + "/" + LocalCloudFileSystem.temporaryPrefix + "old"
        let young = folder.path + "/" + LocalCloudFileSystem.temporaryPrefix + "young"
        #expect(FileManager.default.createFile(atPath: old, contents: Data("half".utf8)))
        #expect(FileManager.default.createFile(atPath: young, contents: Data("half".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-7_200)], ofItemAtPath: old)
        #expect(try await cloud.removeStaleUploads(in: .root, olderThan: .seconds(3_600)) == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(left == [LocalCloudFileSystem.temporaryPrefix + "young", "real"].sorted())
    }
}

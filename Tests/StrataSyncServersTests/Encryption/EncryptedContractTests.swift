import Foundation
import Testing
import StrataSync
@testable import StrataSyncServers

/// The `CloudFileSystem` contract through the encryption wrapper, over a real folder and over
/// the memory store: the same results as the bare stores, sizes and limits in plaintext, the
/// key files out of sight.
@Suite("Encrypted cloud file system: contract")
struct EncryptedContractTests {
    typealias F = EncryptionFixtures

    @Test("directories, files, replacement, listings with plaintext sizes, errors", arguments: F.Inner.allCases)
    func filesAndDirectories(_ inner: F.Inner) async throws {
        let (store, folder) = inner.make()
        _ = folder
        let cloud = F.sealed(store)
        try await cloud.connect()
        let dir = try F.path("Notes/events")
        try await cloud.createDirectory(at: dir)
        try await cloud.createDirectory(at: dir)
        #expect(try await cloud.fileExists(at: dir) == (true, true))
        let a = try dir.appending("a.bin"), b = try dir.appending("b.bin")
        let bytes = Data((0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try await cloud.upload(bytes, to: a)
        try await cloud.upload(Data(), to: b)
        #expect(try await cloud.download(from: a) == bytes)
        #expect(try await cloud.download(from: b) == Data())
        try await cloud.upload(Data("replaced".utf8), to: a)
        #expect(try await cloud.download(from: a) == Data("replaced".utf8))

        let listing = try await cloud.contentsOfDirectory(at: dir).sorted { $0.name < $1.name }
        #expect(listing == [CloudItem(name: try CloudName("a.bin"), size: 8, isDirectory: false),
                            CloudItem(name: try CloudName("b.bin"), size: 0, isDirectory: false)])
        // The wrapped store holds each file with the fixed overhead.
        let stored = try await store.contentsOfDirectory(at: dir).sorted { $0.name < $1.name }
        #expect(stored.map(\.size) == [8 + EncryptedCloudFileSystem.overhead, EncryptedCloudFileSystem.overhead])

        // The root lists the ensemble folder, not the key file the wrapped store holds.
        #expect(try await cloud.contentsOfDirectory(at: .root).map(\.name.rawValue) == ["Notes"])
        let rootOfStore = try await store.contentsOfDirectory(at: .root).map(\.name.rawValue)
        #expect(rootOfStore.count == 2 && rootOfStore.contains { $0.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) })

        #expect(await F.code { _ = try await cloud.download(from: try dir.appending("none")) } == .notFound)
        #expect(await F.code { _ = try await cloud.download(from: dir) } == .typeMismatch)
        #expect(await F.code { try await cloud.upload(Data(), to: try F.path("no-parent/f")) } == .notFound)
        #expect(await F.code { try await cloud.upload(Data(), to: dir) } == .typeMismatch)
        #expect(await F.code { try await cloud.upload(Data(), to: .root) } == .unsafeName)
        #expect(await F.code { try await cloud.createDirectory(at: a) } == .typeMismatch)
        #expect(await F.code { _ = try await cloud.contentsOfDirectory(at: a) } == .typeMismatch)
        #expect(await F.code { _ = try await cloud.contentsOfDirectory(at: try F.path("missing")) } == .notFound)
        #expect(try await cloud.fileExists(at: try dir.appending("none")) == (false, false))
    }

    @Test("removal is idempotent and recursive, never the root", arguments: F.Inner.allCases)
    func removal(_ inner: F.Inner) async throws {
        let (store, folder) = inner.make()
        _ = folder
        let cloud = F.sealed(store)
        try await cloud.createDirectory(at: try F.path("a/b/c"))
        try await cloud.upload(Data("1".utf8), to: try F.path("a/b/c/f"))
        try await cloud.upload(Data("2".utf8), to: try F.path("a/keep"))
        try await cloud.removeItem(at: try F.path("a/b"))
        try await cloud.removeItem(at: try F.path("a/b"))
        #expect(try await cloud.fileExists(at: try F.path("a/b/c")) == (false, false))
        #expect(try await cloud.download(from: try F.path("a/keep")) == Data("2".utf8))
        #expect(await F.code { try await cloud.removeItem(at: .root) } == .unsafeName)
    }

    @Test("limits count plaintext: the overhead is taken off the wrapped store's maxFileSize", arguments: F.Inner.allCases)
    func limits(_ inner: F.Inner) async throws {
        let overhead = EncryptedCloudFileSystem.overhead
        let (store, folder) = inner.make(limits: CloudLimits(maxFileSize: 200 + overhead, maxListingCount: 5))
        _ = folder
        let cloud = F.sealed(store)
        #expect(cloud.limits == CloudLimits(maxFileSize: 200, maxListingCount: 5))
        let dir = try F.path("d")
        try await cloud.createDirectory(at: dir)
        try await cloud.upload(Data(count: 200), to: try dir.appending("exact"))
        #expect(try await cloud.download(from: try dir.appending("exact")) == Data(count: 200))
        #expect(await F.code { try await cloud.upload(Data(count: 201), to: try dir.appending("big")) } == .tooLarge)
        #expect(try await cloud.fileExists(at: try dir.appending("big")) == (false, false))
        try await cloud.upload(Data(count: 5), to: try dir.appending("small"))
        for index in 0..<3 { try await cloud.upload(Data(), to: try dir.appending("f\(index)")) }
        #expect(try await cloud.contentsOfDirectory(at: dir).count == 5)
        try await cloud.upload(Data(), to: try dir.appending("f3"))
        #expect(await F.code { _ = try await cloud.contentsOfDirectory(at: dir) } == .listingTooLong)

        let local = F.Folder("local")
        let source = local.file("source.bin")
        try Data(count: 201).write(to: source)
        #expect(await F.code { try await cloud.uploadLocalFile(at: source, to: try dir.appending("from-disk")) } == .tooLarge)
        try Data(repeating: 7, count: 200).write(to: source)
        try await cloud.uploadLocalFile(at: source, to: try dir.appending("from-disk"))
        try await cloud.download(from: try dir.appending("from-disk"), toLocalFile: local.file("copy.bin"))
        #expect(try Data(contentsOf: local.file("copy.bin")) == Data(repeating: 7, count: 200))
    }

    @Test("the key files' names are reserved: refused by every call, hidden from listings", arguments: F.Inner.allCases)
    func reservedNames(_ inner: F.Inner) async throws {
        let (store, folder) = inner.make()
        _ = folder
        let cloud = F.sealed(store)
        try await cloud.connect()
        let key = try #require(try await store.contentsOfDirectory(at: .root).first { $0.name.rawValue.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) })
        let keyPath = try CloudPath.root.appending(key.name)
        let other = try F.path("\(EncryptedCloudFileSystem.keyFilePrefix)0000000000000000/x")
        for path in [keyPath, other] {
            #expect(await F.code { _ = try await cloud.download(from: path) } == .unsafeName)
            #expect(await F.code { try await cloud.upload(Data(), to: path) } == .unsafeName)
            #expect(await F.code { try await cloud.removeItem(at: path) } == .unsafeName)
            #expect(await F.code { _ = try await cloud.fileExists(at: path) } == .unsafeName)
            #expect(await F.code { try await cloud.createDirectory(at: path) } == .unsafeName)
            #expect(await F.code { _ = try await cloud.contentsOfDirectory(at: path) } == .unsafeName)
        }
        #expect(try await cloud.contentsOfDirectory(at: .root).isEmpty)
        #expect(try await store.fileExists(at: keyPath) == (true, false))
        // The same name below the root is an ordinary name.
        let below = try F.path("dir/\(key.name.rawValue)")
        try await cloud.createDirectory(at: try F.path("dir"))
        try await cloud.upload(Data("ok".utf8), to: below)
        #expect(try await cloud.download(from: below) == Data("ok".utf8))
    }
}

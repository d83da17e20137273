import Foundation
import Testing
import StrataSync
@testable import StrataSyncServers

/// Fresh peers connecting to one empty folder at once: a dumb store cannot refuse a second
/// key file, so the design makes two harmless — every file names its key, key files are never
/// overwritten, and every peer settles on the smallest key identifier.
@Suite("Encrypted cloud file system: racing first connects")
struct EncryptionKeyRaceTests {
    typealias F = EncryptionFixtures

    /// Opens once, for every waiter before and after.
    actor Latch {
        private var isOpen = false
        private var waiters: [CheckedContinuation<Void, Never>] = []

        func wait() async {
            if isOpen { return }
            await withCheckedContinuation { waiters.append($0) }
        }

        func open() {
            isOpen = true
            for waiter in waiters { waiter.resume() }
            waiters = []
        }
    }

    /// A folder whose key file uploads stop at a gate: `reached` opens when one arrives, and
    /// it goes on once `proceed` opens.
    struct GatedFolder: CloudFileSystem {
        let inner: LocalCloudFileSystem
        let reached = Latch()
        let proceed = Latch()
        var limits: CloudLimits { inner.limits }

        func connect() async throws { try await inner.connect() }
        func fileExists(at path: CloudPath) async throws -> (exists: Bool, isDirectory: Bool) { try await inner.fileExists(at: path) }
        func contentsOfDirectory(at path: CloudPath) async throws -> [CloudItem] { try await inner.contentsOfDirectory(at: path) }
        func createDirectory(at path: CloudPath) async throws { try await inner.createDirectory(at: path) }
        func download(from path: CloudPath) async throws -> Data { try await inner.download(from: path) }
        func removeItem(at path: CloudPath) async throws { try await inner.removeItem(at: path) }
        func upload(_ data: Data, to path: CloudPath) async throws {
            if path.rawValue.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) {
                await reached.open()
                await proceed.wait()
            }
            try await inner.upload(data, to: path)
        }
    }

    static func keyFiles(_ store: any CloudFileSystem) async throws -> [String] {
        try await store.contentsOfDirectory(at: .root).map(\.name.rawValue).filter { $0.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) }.sorted()
    }

    @Test func theWorstInterleavingLosesNoFileAndEndsWithOneKey() async throws {
        // Timeline:
        // 1. B lists an empty root, derives its key and stops at the upload of its key file.
        // 2. A connects alone: it writes key file kA, sees only kA, and seals a file with it.
        // 3. B goes on: writes kB, lists kA and kB, adopts the smaller, seals a file.
        // 4. Each reads the other's file (A meets kB if B sealed with it, and loads it).
        // 5. Each connects again: both seal with the smaller key from then on.
        let folder = F.Folder("race")
        let store = LocalCloudFileSystem(rootDirectory: folder.url)
        let gated = GatedFolder(inner: store)
        let a = F.sealed(store), b = F.sealed(gated)
        let connectB = Task { try await b.connect() }
        await gated.reached.wait()                                             // 1
        try await a.connect()                                                  // 2
        let keyA = try #require(await a.keyring.currentWriteKeyID)
        #expect(try await Self.keyFiles(store) == [EncryptionKeyFile.name(for: keyA)], "A was alone: it adopted its own key")
        try await a.createDirectory(at: try F.path("Notes"))
        try await a.upload(Data("from a".utf8), to: try F.path("Notes/a"))
        await gated.proceed.open()                                             // 3
        try await connectB.value
        let keyB = try #require(await b.keyring.currentWriteKeyID)
        let files = try await Self.keyFiles(store)
        #expect(files.count == 2, "both peers wrote a key file: \(files)")
        let smallest = try #require(files.first.flatMap { EncryptionKeyFile.id(inName: $0) })
        #expect(keyB == smallest, "B saw both key files and adopted the smaller")
        try await b.upload(Data("from b".utf8), to: try F.path("Notes/b"))
        #expect(try await a.download(from: try F.path("Notes/b")) == Data("from b".utf8))   // 4
        #expect(try await b.download(from: try F.path("Notes/a")) == Data("from a".utf8))
        try await a.connect()                                                  // 5
        try await b.connect()
        #expect(await a.keyring.currentWriteKeyID == smallest)
        #expect(await b.keyring.currentWriteKeyID == smallest)
        try await a.upload(Data("later a".utf8), to: try F.path("Notes/a2"))
        try await b.upload(Data("later b".utf8), to: try F.path("Notes/b2"))
        for name in ["a2", "b2"] {
            let sealed = try Data(contentsOf: folder.file("Notes/\(name)"))
            #expect(EncryptionKeyID(bytes: sealed[5..<13]) == smallest, "\(name) is sealed with the shared key")
        }
        // A third peer arriving later reads every file.
        let c = F.sealed(store)
        for (name, text) in [("a", "from a"), ("b", "from b"), ("a2", "later a"), ("b2", "later b")] {
            #expect(try await c.download(from: try F.path("Notes/\(name)")) == Data(text.utf8))
        }
        #expect(try await Self.keyFiles(store) == files, "no key file was added or removed")
    }

    @Test func freshPeersRacingOnAnEmptyFolderEndWithOneSaltTheyAllUse() async throws {
        let folder = F.Folder("race-free")
        let store = LocalCloudFileSystem(rootDirectory: folder.url)
        let peers = (0..<4).map { _ in F.sealed(store) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for peer in peers { group.addTask { try await peer.connect() } }
            try await group.waitForAll()
        }
        let files = try await Self.keyFiles(store)
        #expect((1...4).contains(files.count))
        for peer in peers { try await peer.connect() }   // the next sync of each
        let smallest = try #require(files.first.flatMap { EncryptionKeyFile.id(inName: $0) })
        try await peers[0].createDirectory(at: try F.path("Notes"))
        for (index, peer) in peers.enumerated() {
            #expect(await peer.keyring.currentWriteKeyID == smallest)
            try await peer.upload(Data("peer \(index)".utf8), to: try F.path("Notes/\(index)"))
        }
        for reader in peers {
            for index in peers.indices {
                #expect(try await reader.download(from: try F.path("Notes/\(index)")) == Data("peer \(index)".utf8))
            }
        }
    }

    @Test func peersOnAStoreWhoseListingsLagReadEachOtherAtOnceAndSettleLater() async throws {
        var lagging = FaultPlan(seed: 1)
        lagging.listingLag = 40
        let memory = MemoryCloudFileSystem(faults: lagging)
        let a = F.sealed(memory), b = F.sealed(memory)
        try await a.connect()   // writes kA; its own listing does not show it yet
        try await b.connect()   // lists no key file: writes kB
        let stored = await memory.allFiles.keys.map(\.rawValue).filter { $0.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) }.sorted()
        #expect(stored.count == 2, "\(stored)")
        let keyA = try #require(await a.keyring.currentWriteKeyID), keyB = try #require(await b.keyring.currentWriteKeyID)
        #expect(keyA != keyB)
        try await a.createDirectory(at: try F.path("Notes"))
        try await a.upload(Data("from a".utf8), to: try F.path("Notes/a"))
        try await b.upload(Data("from b".utf8), to: try F.path("Notes/b"))
        // Each reads the other's file by the key file's name, though no listing shows it.
        #expect(try await a.download(from: try F.path("Notes/b")) == Data("from b".utf8))
        #expect(try await b.download(from: try F.path("Notes/a")) == Data("from a".utf8))
        // Once the listings catch up, the next connect of each adopts the smaller key.
        for _ in 0..<40 { _ = try await memory.fileExists(at: .root) }
        try await a.connect()
        try await b.connect()
        let smallest = min(keyA, keyB)
        #expect(await a.keyring.currentWriteKeyID == smallest)
        #expect(await b.keyring.currentWriteKeyID == smallest)
    }

    @Test func oneInstanceCalledConcurrentlyWritesOneKeyFile() async throws {
        let folder = F.Folder("race-self")
        let store = LocalCloudFileSystem(rootDirectory: folder.url)
        let cloud = F.sealed(store)
        try await store.createDirectory(at: try F.path("Notes"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask { try await cloud.upload(Data("\(index)".utf8), to: try F.path("Notes/\(index)")) }
            }
            try await group.waitForAll()
        }
        #expect(try await Self.keyFiles(store).count == 1)
        for index in 0..<8 { #expect(try await cloud.download(from: try F.path("Notes/\(index)")) == Data("\(index)".utf8)) }
    }
}

import Foundation
import Testing
import StrataSync
@testable import StrataSyncServers

/// The key file at the root: a wrong password, a damaged, renamed or later key file — each a
/// typed error at the first call, with nothing read or written.
@Suite("Encrypted cloud file system: key files")
struct EncryptionKeyFileTests {
    typealias F = EncryptionFixtures

    /// A folder sealed with "correct horse" holding one file, its bare store, and the key
    /// file's path.
    static func sealedFolder() async throws -> (LocalCloudFileSystem, F.Folder, CloudPath) {
        let folder = F.Folder("keys")
        let store = LocalCloudFileSystem(rootDirectory: folder.url)
        let cloud = F.sealed(store)
        try await cloud.createDirectory(at: try F.path("Notes"))
        try await cloud.upload(Data("hello".utf8), to: try F.path("Notes/file"))
        let keys = try await store.contentsOfDirectory(at: .root).filter { $0.name.rawValue.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) }
        #expect(keys.count == 1)
        let key = try #require(keys.first)
        #expect(key.size == EncryptionKeyFile.size)
        return (store, folder, try CloudPath.root.appending(key.name))
    }

    @Test func aWrongPasswordFailsAtConnectAndAtTheFirstReadAndWritesNothing() async throws {
        let (store, folder, _) = try await Self.sealedFolder()
        let before = try folder.allFiles()
        let atConnect = await F.error { try await F.sealed(store, "Correct horse").connect() }
        #expect(atConnect?.code == .wrongPassword)
        #expect(atConnect?.message.contains("another password") == true)
        // A fresh instance whose first call is a read, a listing or a write.
        #expect(await F.code { _ = try await F.sealed(store, "wrong").download(from: try F.path("Notes/file")) } == .wrongPassword)
        #expect(await F.code { _ = try await F.sealed(store, "wrong").contentsOfDirectory(at: try F.path("Notes")) } == .wrongPassword)
        #expect(await F.code { try await F.sealed(store, "wrong").upload(Data("x".utf8), to: try F.path("Notes/other")) } == .wrongPassword)
        // The same instance keeps refusing (without deriving again) and never writes.
        let wrong = F.sealed(store, "wrong")
        for _ in 0..<3 { #expect(await F.code { try await wrong.connect() } == .wrongPassword) }
        #expect(await F.code { try await wrong.removeItem(at: try F.path("Notes/file")) } == .wrongPassword)
        #expect(try folder.allFiles() == before)
        #expect(try await F.sealed(store).download(from: try F.path("Notes/file")) == Data("hello".utf8))
    }

    @Test func aKeyFileOfALaterOrUnknownVersionIsATypedError() async throws {
        let (store, folder, keyPath) = try await Self.sealedFolder()
        defer { withExtendedLifetime(folder) {} }
        let good = try await store.download(from: keyPath)
        var later = good
        later[4] = 2
        try await store.upload(later, to: keyPath)
        let future = await F.error { try await F.sealed(store).connect() }
        #expect(future?.code == .fromTheFuture)
        #expect(future?.message.contains("update the app") == true)
        // A later key file may be any length.
        try await store.upload(Data("SKEY".utf8) + [7, 1, 2, 3], to: keyPath)
        #expect(await F.code { try await F.sealed(store).connect() } == .fromTheFuture)
        later[4] = 0
        try await store.upload(later, to: keyPath)
        #expect(await F.code { _ = try await F.sealed(store).download(from: try F.path("Notes/file")) } == .unknownFormatVersion)
        try await store.upload(good, to: keyPath)
        #expect(try await F.sealed(store).download(from: try F.path("Notes/file")) == Data("hello".utf8))
    }

    @Test func aDamagedOrRenamedKeyFileIsCorruptNotAWrongPasswordAndLocksNoOneOut() async throws {
        let (store, folder, keyPath) = try await Self.sealedFolder()
        defer { withExtendedLifetime(folder) {} }
        let good = try await store.download(from: keyPath)
        let file = try F.path("Notes/file")
        var damages: [(String, Data)] = [5, 6, 9, 20, 60, good.count - 1].map { index in
            var damaged = good
            damaged[index] ^= 0x01
            return ("byte \(index) flipped", damaged)
        }
        damages += [0, 4, 5, good.count - 1].map { ("cut to \($0)", good.prefix($0)) }
        damages.append(("a byte appended", good + [0]))
        for (label, damaged) in damages {
            try await store.upload(damaged, to: keyPath)
            // The file sealed with that key can't be read: corrupt, not a wrong password.
            let cloud = F.sealed(store)
            let error = await F.error { _ = try await cloud.download(from: file) }
            #expect(error?.code == .corruptFile, "\(label): \(String(describing: error))")
            #expect(error?.path == keyPath.rawValue, "\(label)")
            // The damaged key file is passed over: new files go under a new key.
            try await cloud.upload(Data("new".utf8), to: try F.path("Notes/new"))
            #expect(try await F.sealed(store).download(from: try F.path("Notes/new")) == Data("new".utf8), "\(label)")
            #expect(await cloud.keyring.currentWriteKeyID != EncryptionKeyFile.id(inName: keyPath.rawValue))
        }
        // Exactly one new key file was written (by the first damage); the others found it.
        let keyFiles = try await store.contentsOfDirectory(at: .root).filter { $0.name.rawValue.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) }
        #expect(keyFiles.count == 2)
        try await store.upload(good, to: keyPath)
        #expect(try await F.sealed(store).download(from: file) == Data("hello".utf8))

        // A key file under another key's name is refused as such.
        let renamed = try CloudPath.root.appending(EncryptionKeyFile.name(for: EncryptionKeyID(rawValue: 42)))
        try await store.upload(good, to: renamed)
        let cloud = F.sealed(store)
        try await cloud.connect()
        #expect(try await cloud.download(from: file) == Data("hello".utf8))
        #expect(await cloud.keyring.currentWriteKeyID != EncryptionKeyID(rawValue: 42))
        var sealed = try await store.download(from: file)
        sealed.replaceSubrange(5..<13, with: EncryptionKeyID(rawValue: 42).bytes)
        try await store.upload(sealed, to: file)
        let error = await F.error { _ = try await cloud.download(from: file) }
        #expect(error?.code == .corruptFile && error?.path == renamed.rawValue, "\(String(describing: error))")
        #expect(error?.message.contains("name does not match") == true)
    }

    @Test func aKeyFileCutShortAtCreationIsTakenBack() async throws {
        // The store keeps a prefix of every upload and reports the failure.
        var cut = FaultPlan(seed: 5)
        cut.partialUploadProbability = 1
        let memory = MemoryCloudFileSystem(faults: cut)
        let first = F.sealed(memory)
        #expect(await F.code { try await first.connect() } == .backendFailure)
        #expect(try await memory.contentsOfDirectory(at: .root).isEmpty, "the cut key file was removed")
        // Cut and reported as success: the read-back finds it and removes it.
        cut.partialUploadsReportSuccess = true
        await memory.setFaults(cut)
        let second = F.sealed(memory)
        let error = await F.error { try await second.connect() }
        #expect(error?.code == .backendFailure && error?.message.contains("read back") == true, "\(String(describing: error))")
        #expect(try await memory.contentsOfDirectory(at: .root).isEmpty)
        await memory.setFaults(.none)
        try await second.connect()
        try await second.createDirectory(at: try F.path("Notes"))
        try await second.upload(Data("x".utf8), to: try F.path("Notes/x"))
        #expect(try await F.sealed(memory).download(from: try F.path("Notes/x")) == Data("x".utf8))
    }

    @Test func scryptParametersOutOfRangeAreRefused() {
        #expect(KeyDerivationCost.problem(log2Rounds: 17, blockSize: 8, parallelism: 1) == nil)
        #expect(KeyDerivationCost.problem(log2Rounds: 0, blockSize: 8, parallelism: 1) != nil)
        #expect(KeyDerivationCost.problem(log2Rounds: 24, blockSize: 8, parallelism: 1) != nil)   // 2 GiB
        #expect(KeyDerivationCost.problem(log2Rounds: 10, blockSize: 33, parallelism: 1) != nil)
        #expect(KeyDerivationCost.problem(log2Rounds: 10, blockSize: 8, parallelism: 17) != nil)
    }

    @Test func aKeyFileOfAnotherPasswordAmongTheKeysLocksEveryoneOut() async throws {
        let (store, folder, _) = try await Self.sealedFolder()
        defer { withExtendedLifetime(folder) {} }
        // A peer with another password whose listing showed no key file wrote its own.
        let (file, _) = try EncryptionKeyFile.create(id: EncryptionKeyID(rawValue: 7), cost: .minimal, password: EncryptionPassword("typo"))
        let rogue = try CloudPath.root.appending(EncryptionKeyFile.name(for: file.id))
        try await store.upload(file.encoded, to: rogue)
        let connected = F.sealed(store)
        #expect(await F.code { try await connected.connect() } == .wrongPassword)
        #expect(await F.code { _ = try await connected.download(from: try F.path("Notes/file")) } == .wrongPassword)
        try await store.removeItem(at: rogue)
        try await connected.connect()
        #expect(try await connected.download(from: try F.path("Notes/file")) == Data("hello".utf8))
    }
}

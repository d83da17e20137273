import Foundation
import Testing
import StrataSync
@testable import StrataSyncServers

/// Sealed files in a real folder: what the folder holds, and every way a stored file can be
/// wrong — each a typed error, never a crash and never garbage.
@Suite("Encrypted cloud file system: sealed files")
struct EncryptedFileTests {
    typealias F = EncryptionFixtures

    /// A sealed cloud over a real folder, with the folder's bare store.
    static func folderCloud() async throws -> (EncryptedCloudFileSystem, LocalCloudFileSystem, F.Folder) {
        let folder = F.Folder("sealed")
        let store = LocalCloudFileSystem(rootDirectory: folder.url)
        let cloud = F.sealed(store)
        try await cloud.connect()
        try await cloud.createDirectory(at: try F.path("Notes/events"))
        return (cloud, store, folder)
    }

    @Test func theFolderHoldsNoPlaintextAndEveryUploadHasItsOwnNonce() async throws {
        let (cloud, _, folder) = try await Self.folderCloud()
        let secret = Data("Ursula K. Le Guin wrote The Dispossessed in 1974".utf8)
        let one = try F.path("Notes/events/one"), two = try F.path("Notes/events/two")
        try await cloud.upload(secret, to: one)
        let first = try Data(contentsOf: folder.file(one.rawValue))
        try await cloud.upload(secret, to: one)
        let again = try Data(contentsOf: folder.file(one.rawValue))
        try await cloud.upload(secret, to: two)
        let other = try Data(contentsOf: folder.file(two.rawValue))
        for stored in [first, again, other] {
            #expect(stored.count == secret.count + EncryptedCloudFileSystem.overhead)
            #expect(stored.range(of: Data("Dispossessed".utf8)) == nil)
            #expect(stored.range(of: Data("Ursula".utf8)) == nil)
            #expect(stored.prefix(5) == Data("SENC".utf8) + [1])
        }
        // Same plaintext, same path or not: different nonces, different bytes.
        #expect(first != again && first != other && again != other)
        #expect(first[13..<25] != again[13..<25])
        // No file in the folder, key file included, holds the plaintext or the password.
        for (name, data) in try folder.allFiles() {
            #expect(data.range(of: Data("Dispossessed".utf8)) == nil, "\(name)")
            #expect(data.range(of: Data("correct horse".utf8)) == nil, "\(name)")
        }
        #expect(try await cloud.download(from: one) == secret)
    }

    @Test func tamperedTruncatedSwappedAndBitFlippedFilesAreCorrupt() async throws {
        let (cloud, store, folder) = try await Self.folderCloud()
        let a = try F.path("Notes/events/a"), b = try F.path("Notes/events/b")
        let plaintext = Data((0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try await cloud.upload(plaintext, to: a)
        try await cloud.upload(Data("another file".utf8), to: b)
        let good = try Data(contentsOf: folder.file(a.rawValue))
        let target = try F.path("Notes/events/victim")

        func expectCorrupt(_ bytes: Data, _ label: String) async throws {
            try await store.upload(bytes, to: target)
            let error = await F.error { _ = try await cloud.download(from: target) }
            #expect(error?.code == .corruptFile, "\(label): \(String(describing: error))")
            #expect(error?.path == target.rawValue, "\(label)")
        }

        // Moved under another name (the path is authenticated).
        try await expectCorrupt(good, "moved")
        // Another file's bytes swapped in at a's path.
        try await store.upload(try Data(contentsOf: folder.file(b.rawValue)), to: a)
        #expect(await F.code { _ = try await cloud.download(from: a) } == .corruptFile)
        try await store.upload(good, to: a)
        #expect(try await cloud.download(from: a) == plaintext)
        // One bit flipped in the key identifier, the nonce, the ciphertext and the tag.
        for index in [5, 12, 13, 24, 25, 100, good.count - 17, good.count - 16, good.count - 1] {
            var flipped = good
            flipped[index] ^= 0x10
            try await store.upload(flipped, to: a)
            let code = await F.code { _ = try await cloud.download(from: a) }
            #expect(code == .corruptFile, "bit flipped at \(index): \(String(describing: code))")
        }
        // Cut short anywhere, or with bytes added.
        for length in [0, 3, 5, 20, 40, 41, good.count / 2, good.count - 1] {
            try await expectCorrupt(good.prefix(length), "truncated to \(length)")
        }
        try await expectCorrupt(good + [0], "one byte appended")
        // A file written without encryption, and the same file sealed by another cloud with
        // the same password (another salt, so another key).
        try await expectCorrupt(Data("plain text".utf8), "unencrypted")
        let elsewhere = F.Folder("elsewhere")
        let otherCloud = F.sealed(LocalCloudFileSystem(rootDirectory: elsewhere.url))
        try await otherCloud.createDirectory(at: try F.path("Notes/events"))
        try await otherCloud.upload(plaintext, to: target)
        try await expectCorrupt(try Data(contentsOf: elsewhere.file(target.rawValue)), "sealed by another cloud")
        // The good bytes still open: nothing was cached wrongly.
        try await store.upload(good, to: a)
        #expect(try await cloud.download(from: a) == plaintext)
    }

    @Test func aFileOfAnotherFormatVersionIsATypedError() async throws {
        let (cloud, store, folder) = try await Self.folderCloud()
        let a = try F.path("Notes/events/a")
        try await cloud.upload(Data("x".utf8), to: a)
        var later = try Data(contentsOf: folder.file(a.rawValue))
        later[4] = 2
        try await store.upload(later, to: a)
        let future = await F.error { _ = try await cloud.download(from: a) }
        #expect(future?.code == .fromTheFuture)
        #expect(future?.message.contains("version 2") == true)
        later[4] = 0
        try await store.upload(later, to: a)
        #expect(await F.code { _ = try await cloud.download(from: a) } == .unknownFormatVersion)
        // A later format may be any length: the version is read before the size is checked.
        try await store.upload(Data("SENC".utf8) + [9], to: a)
        #expect(await F.code { _ = try await cloud.download(from: a) } == .fromTheFuture)
    }

    @Test func thePasswordNeverShowsInDescriptionsOrDumps() async throws {
        let (cloud, _, folder) = try await Self.folderCloud()
        defer { withExtendedLifetime(folder) {} }
        var dumped = ""
        dump(cloud, to: &dumped)
        for text in [String(describing: cloud), String(reflecting: cloud), dumped, String(describing: EncryptionPassword("correct horse"))] {
            #expect(!text.contains("correct horse"), "\(text)")
            #expect(!text.isEmpty)
        }
        let error = await F.error { try await F.sealed(cloud.wrapped, "wrong horse").connect() }
        #expect(error?.code == .wrongPassword)
        #expect(error.map { !"\($0)".contains("wrong horse") } == true)
    }

    @Test func aPasswordIsTheSameComposedOrDecomposed() async throws {
        let folder = F.Folder("nfc")
        let store = LocalCloudFileSystem(rootDirectory: folder.url)
        let composed = F.sealed(store, "caf\u{E9}")
        try await composed.upload(Data("x".utf8), to: try F.path("f"))
        let decomposed = F.sealed(store, "cafe\u{301}")
        #expect(try await decomposed.download(from: try F.path("f")) == Data("x".utf8))
        #expect(await F.code { try await F.sealed(store, "cafe").connect() } == .wrongPassword)
    }

    @Test func costsAreBroughtIntoRange() {
        #expect(KeyDerivationCost.standard.log2Rounds == 17 && KeyDerivationCost.standard.blockSize == 8 && KeyDerivationCost.standard.parallelism == 1)
        let huge = KeyDerivationCost(log2Rounds: 40, blockSize: 64, parallelism: 99)
        #expect(huge.blockSize == 32 && huge.parallelism == 16)
        #expect(128 * huge.blockSize << huge.log2Rounds <= KeyDerivationCost.maxMemory)
        let tiny = KeyDerivationCost(log2Rounds: -3, blockSize: 0, parallelism: 0)
        #expect(tiny.log2Rounds == 1 && tiny.blockSize == 1 && tiny.parallelism == 1)
    }
}

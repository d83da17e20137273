import Foundation
import Strata
import Testing
@testable import StrataSync
@testable import StrataSyncServers

/// Ensembles syncing through an encrypted real folder: they converge, a wrong password stops
/// a peer before anything merges, and a damaged change file is skipped with a report until a
/// good copy is there.
@Suite("Encrypted cloud file system: ensembles")
struct EncryptedEnsembleTests {
    typealias F = EncryptionFixtures

    @Test func twoPeersConvergeThroughAnEncryptedFolder() async throws {
        let folder = F.Folder("ensemble")
        let model = try F.model()
        // Each device has its own wrapper instance, as two machines would.
        let a = try await F.Device("a", cloud: F.sealed(LocalCloudFileSystem(rootDirectory: folder.url)), model: model)
        let b = try await F.Device("b", cloud: F.sealed(LocalCloudFileSystem(rootDirectory: folder.url)), model: model)
        try await a.addAuthor("ursula", name: "Ursula", book: "The Dispossessed")
        try await b.addAuthor("octavia", name: "Octavia", book: "Kindred")
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        for _ in 0..<2 {
            try await a.ensemble.sync()
            try await b.ensemble.sync()
        }
        let expected = ["Author octavia Octavia", "Author ursula Ursula", "Book Kindred by octavia", "Book The Dispossessed by ursula"]
        #expect(try await a.contents() == expected)
        #expect(try await b.contents() == expected)
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())

        // Edits on both sides after the first exchange converge too.
        let context = b.context
        try await context.perform {
            let book = try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).first { $0.primitiveValue(forKey: "title") == .string("The Dispossessed") }
            try book?.setValue(5, forKey: "rating")
            try context.save()
        }
        try await a.addAuthor("iain", name: "Iain", book: "Excession")
        for _ in 0..<2 {
            try await a.ensemble.sync()
            try await b.ensemble.sync()
        }
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())
        #expect(try await b.contents().contains("Book Excession by iain"))

        // What the folder holds: readable names, sealed contents.
        let files = try folder.allFiles()
        #expect(files.keys.contains { $0.hasPrefix("Notes/events/") && $0.hasSuffix("_events.strata") })
        #expect(files.keys.contains { $0.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) })
        for (name, data) in files {
            for secret in ["Dispossessed", "Kindred", "Excession", "Ursula", "octavia"] {
                #expect(data.range(of: Data(secret.utf8)) == nil, "\(name) holds \(secret)")
            }
            if !name.hasPrefix(EncryptedCloudFileSystem.keyFilePrefix) { #expect(data.prefix(4) == Data("SENC".utf8), "\(name)") }
        }
    }

    @Test func aWrongPasswordStopsAPeerBeforeAnythingMerges() async throws {
        let folder = F.Folder("wrong")
        let model = try F.model()
        let store = LocalCloudFileSystem(rootDirectory: folder.url)
        let a = try await F.Device("a", cloud: F.sealed(store), model: model)
        try await a.addAuthor("ursula", name: "Ursula", book: "The Dispossessed")
        try await a.ensemble.attach()
        try await a.ensemble.sync()

        // b attaches with a typo: nothing merges into its store, nothing goes to the cloud.
        let b = try await F.Device("b", cloud: F.sealed(store, "correct hose"), model: model)
        try await b.addAuthor("octavia", name: "Octavia", book: "Kindred")
        let storeBefore = try await b.contents()
        let cloudBefore = try folder.allFiles()
        let attach = await F.error { try await b.ensemble.attach() }
        #expect(attach?.code == .wrongPassword, "\(String(describing: attach))")
        #expect(await !b.ensemble.isAttached)
        #expect(try await b.contents() == storeBefore)
        #expect(try folder.allFiles() == cloudBefore)

        // With the right password b attaches and merges.
        try await b.relaunch(cloud: F.sealed(store))
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        #expect(try await b.contents().contains("Author ursula Ursula"))

        // a adds a book; b, relaunched with a wrong password, fails its sync and merges nothing.
        try await a.addAuthor("iain", name: "Iain", book: "Excession")
        try await a.ensemble.sync()
        try await b.relaunch(cloud: F.sealed(store, "wrong"))
        #expect(await b.ensemble.isAttached)
        let attached = try await b.contents()
        let cloudNow = try folder.allFiles()
        #expect(await F.code { try await b.ensemble.sync() } == .wrongPassword)
        #expect(try await b.contents() == attached)
        #expect(!attached.contains("Author iain Iain"))
        #expect(try folder.allFiles() == cloudNow)

        try await b.relaunch(cloud: F.sealed(store))
        try await b.ensemble.sync()
        try await a.ensemble.sync()
        #expect(try await b.contents().contains("Author iain Iain"))
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())
    }

    @Test func aTamperedChangeFileIsSkippedWithAReportUntilAGoodCopyIsThere() async throws {
        let folder = F.Folder("tamper")
        let model = try F.model()
        let a = try await F.Device("a", cloud: F.sealed(LocalCloudFileSystem(rootDirectory: folder.url)), model: model)
        let b = try await F.Device("b", cloud: F.sealed(LocalCloudFileSystem(rootDirectory: folder.url)), model: model)
        try await b.addAuthor("octavia", name: "Octavia", book: "Kindred")   // so b's attach writes an event file
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        let before = Set(try folder.allFiles().keys)
        try await a.addAuthor("ursula", name: "Ursula", book: "The Dispossessed")
        try await a.ensemble.sync()
        let added = Set(try folder.allFiles().keys).subtracting(before).filter { $0.hasPrefix("Notes/events/") }
        #expect(added.count == 1, "\(added)")
        let name = try #require(added.first)
        let url = folder.file(name)
        let good = try Data(contentsOf: url)
        let contentsBefore = try await b.contents()

        // Two damages, one after the other: a flipped bit in the ciphertext, and another event
        // file's sealed bytes put under this name (each authenticates only at its own path).
        var flipped = good
        flipped[good.count / 2] ^= 0x01
        let otherEvent = try #require(before.filter { $0.hasPrefix("Notes/events/") }.sorted().first)
        for damaged in [flipped, try Data(contentsOf: folder.file(otherEvent))] {
            try damaged.write(to: url)
            for _ in 0..<2 {   // skipped on every sync, never marked merged
                let report = try await b.ensemble.sync()
                let skipped = report.skippedFiles.filter { $0.path == name }
                #expect(skipped.count == 1, "\(report.skippedFiles)")
                #expect(skipped.first?.error.code == .corruptFile)
                #expect(skipped.first?.error.message.contains("authentication") == true)
                #expect(report.mergedFiles == 0)
                #expect(try await b.contents() == contentsBefore)
            }
        }

        // The good copy is back (as a re-upload would bring it): b merges, the peers agree.
        try good.write(to: url)
        let report = try await b.ensemble.sync()
        #expect(report.skippedFiles.isEmpty, "\(report.skippedFiles)")
        #expect(report.mergedFiles == 1)
        try await a.ensemble.sync()
        #expect(try await b.contents().contains("Author ursula Ursula"))
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())
    }

    @Test func anUploadCutShortIsSkippedByTheReaderAndSentAgainByTheWriter() async throws {
        let memory = MemoryCloudFileSystem()
        let model = try F.model()
        let a = try await F.Device("a", cloud: F.sealed(memory), model: model)
        let b = try await F.Device("b", cloud: F.sealed(memory), model: model)
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        try await a.addAuthor("ursula", name: "Ursula", book: "The Dispossessed")

        // The store keeps a prefix of every upload and says it succeeded.
        var cut = FaultPlan(seed: 3)
        cut.partialUploadProbability = 1
        cut.partialUploadsReportSuccess = true
        await memory.setFaults(cut)
        try await a.ensemble.sync()
        await memory.setFaults(.none)

        let skipped = try await b.ensemble.sync()
        #expect(skipped.mergedFiles == 0)
        #expect(skipped.skippedFiles.count == 1 && skipped.skippedFiles.allSatisfy { $0.error.code == .corruptFile }, "\(skipped.skippedFiles)")
        #expect(try await !b.contents().contains("Author ursula Ursula"))

        // a's listing showed the file at another plaintext size: its next sync sends it again.
        try await a.ensemble.sync()
        let merged = try await b.ensemble.sync()
        #expect(merged.skippedFiles.isEmpty, "\(merged.skippedFiles)")
        #expect(merged.mergedFiles == 1)
        #expect(try await b.contents().contains("Author ursula Ursula"))
        try await a.ensemble.sync()
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())
    }

    /// A plain store's damaged identity file reads as other bytes; an encrypted store's can't
    /// be read at all. An attach writes it anew; attached peers detach and attach again.
    @Test func anUnreadableIdentityFileIsWrittenAnewAndAttachedPeersAttachAgain() async throws {
        let memory = MemoryCloudFileSystem()
        let model = try F.model()
        let a = try await F.Device("a", cloud: F.sealed(memory), model: model)
        let b = try await F.Device("b", cloud: F.sealed(memory), model: model)
        try await a.addAuthor("ursula", name: "Ursula", book: "The Dispossessed")
        try await F.sealed(memory).connect()   // the key file, whole

        // The store cuts a's identity file short and says it succeeded: a's read-back fails.
        var cut = FaultPlan(seed: 9)
        cut.partialUploadProbability = 1
        cut.partialUploadsReportSuccess = true
        await memory.setFaults(cut)
        #expect(await F.code { try await a.ensemble.attach() } == .corruptFile)
        await memory.setFaults(.none)
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await a.ensemble.sync()
        try await b.ensemble.sync()
        #expect(try await b.contents().contains("Author ursula Ursula"))

        // The identity is damaged later: each attached peer's sync detaches it; attaching
        // again writes a new identity, and the peers converge.
        let identity = try CloudPath("Notes/identity")
        try await memory.upload(Data("garbage".utf8), to: identity)
        #expect(await F.code { try await a.ensemble.sync() } == .forcedDetach)
        try await a.ensemble.attach()
        #expect(await F.code { try await b.ensemble.sync() } == .forcedDetach)
        try await b.ensemble.attach()
        try await b.addAuthor("octavia", name: "Octavia", book: "Kindred")
        for _ in 0..<2 {
            try await a.ensemble.sync()
            try await b.ensemble.sync()
        }
        #expect(try await a.contents() == b.contents())
        // Authors have global identifiers and stay one each; books have none, so the
        // re-attaches' fresh exports bring copies (the ensemble's rule, not encryption's).
        let final = try await a.contents()
        #expect(final.filter { $0.hasPrefix("Author") } == ["Author octavia Octavia", "Author ursula Ursula"], "\(final)")
        #expect(final.contains("Book Kindred by octavia") && final.contains("Book The Dispossessed by ursula"))
        #expect(try await a.ensemble.canonicalDump() == b.ensemble.canonicalDump())
    }
}

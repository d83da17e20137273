import Foundation
import Testing
@testable import StrataSync

/// Seeded random runs against the oracle (see ``RandomSyncRun``). `STRATA_SEED=n` replays one
/// seed; `STRATA_LONG=1` runs 20 seeds of 2 000 steps per test.
@Suite struct SyncRandomTests {
    static var longSteps: Int { 2_000 }

    @Test func threePeersConvergeToTheOracle() async throws {
        for seed in SyncRunSettings.seeds(3, longCount: 20, first: 1_000) {
            let threshold = [6, 25, 100][Int(seed % 3)]
            let settings = SyncRunSettings(peers: 3, steps: SyncRunSettings.isLong ? Self.longSteps : 120, baselineEventThreshold: threshold)
            let outcome = try await RandomSyncRun(seed: seed, settings: settings).run()
            #expect(outcome.edits > 0 && outcome.syncs > 0, "seed \(seed)")
            #expect(outcome.oracle.split(separator: "\n").count > 3, "seed \(seed): the run left almost nothing to compare")
        }
    }

    @Test func fivePeersConvergeToTheOracle() async throws {
        for seed in SyncRunSettings.seeds(1, longCount: 10, first: 5_000) {
            let settings = SyncRunSettings(peers: 5, steps: SyncRunSettings.isLong ? Self.longSteps : 150, baselineEventThreshold: 10)
            _ = try await RandomSyncRun(seed: seed, settings: settings).run()
        }
    }

    /// Merges saved to the store in pieces of 1 to 3 objects: links to objects of a later
    /// piece, deletes and cascades split over saves, still converge to the oracle.
    @Test func mergesSavedInSmallPiecesConvergeToTheOracle() async throws {
        for seed in SyncRunSettings.seeds(2, longCount: 10, first: 7_000) {
            var settings = SyncRunSettings(peers: 3, steps: SyncRunSettings.isLong ? Self.longSteps : 120, baselineEventThreshold: [6, 25][Int(seed % 2)])
            settings.mergePieceSize = 1 + Int(seed % 3)
            let outcome = try await RandomSyncRun(seed: seed, settings: settings).run()
            #expect(outcome.edits > 0 && outcome.syncs > 0, "seed \(seed)")
        }
    }

    /// Books link into hierarchies (authors of three entities, tags of two under an abstract
    /// one), with merges saved in pieces of 1 to 3 objects on some seeds: references resolve
    /// to objects of every kind, links to deleted authors and tags come back when their
    /// identifier is inserted again, and every store equals the oracle.
    @Test func linksIntoHierarchiesConvergeToTheOracle() async throws {
        for seed in SyncRunSettings.seeds(4, longCount: 12, first: 11_000) {
            var settings = SyncRunSettings(peers: 3, steps: SyncRunSettings.isLong ? Self.longSteps : 200, baselineEventThreshold: [6, 25, 100][Int(seed % 3)])
            settings.hierarchies = true
            if seed % 2 == 1 { settings.mergePieceSize = 1 + Int(seed % 3) }
            let outcome = try await RandomSyncRun(seed: seed, settings: settings).run()
            #expect(outcome.edits > 0 && outcome.syncs > 0, "seed \(seed)")
            // Links into both hierarchies are left to compare: a subentity's author with books, a tag with books.
            let lines = outcome.oracle.split(separator: "\n")
            func linked(_ kinds: [String]) -> Bool { lines.contains { line in kinds.contains { line.hasPrefix($0) } && !line.contains("books=[]") } }
            #expect(linked(["Poet ", "Novelist "]) && linked(["Genre ", "Mood "]), "seed \(seed): no link into a hierarchy is left:\n\(outcome.oracle)")
        }
    }

    /// The same random three-peer histories through every backend, from one body: memory, a
    /// folder, nginx's WebDAV and moto's S3 on loopback, and encryption over a folder.
    @Test(arguments: Backend.allCases)
    func threePeersOverEachBackendConvergeToTheOracle(_ backend: Backend) async throws {
        for seed in SyncRunSettings.seeds(1, longCount: 4, first: 9_000) {
            var settings = SyncRunSettings(peers: 3, steps: SyncRunSettings.isLong ? 600 : 40, baselineEventThreshold: 8)
            switch backend {
            case .memory: break
            case .local: settings.useFolder = true
            case .encrypted:
                settings.useFolder = true
                settings.encrypted = true
            case .webdav, .s3, .s3Bucket, .s3VirtualHost: settings.backend = backend
            }
            let outcome = try await RandomSyncRun(seed: seed, settings: settings).run()
            #expect(outcome.edits > 0 && outcome.syncs > 0, "seed \(seed) over \(backend.rawValue)")
        }
    }
}

import Foundation
import Testing
@testable import StrataSync

/// The random run through `EncryptedCloudFileSystem`: on a clean memory cloud, and on the
/// flaky one of ``SyncFaultTests`` (calls failing before or after their effect — key file
/// creation included —, lagging listings, uploads cut short and reported or not). Every
/// peer must converge to the oracle built from the plaintext of every file written.
@Suite struct SyncEncryptedRandomTests {
    @Test func threePeersThroughEncryptionConvergeToTheOracle() async throws {
        for seed in SyncRunSettings.seeds(1, longCount: 10, first: 11_000) {
            var settings = SyncRunSettings(peers: 3, steps: SyncRunSettings.isLong ? 1_500 : 120, baselineEventThreshold: 12)
            settings.encrypted = true
            let outcome = try await RandomSyncRun(seed: seed, settings: settings).run()
            #expect(outcome.edits > 0 && outcome.syncs > 0, "seed \(seed)")
        }
    }

    @Test func threePeersThroughEncryptionOnAFlakyCloudConvergeToTheOracle() async throws {
        for seed in SyncRunSettings.seeds(2, longCount: 20, first: 12_000) {
            var settings = SyncRunSettings(peers: 3, steps: SyncRunSettings.isLong ? 1_500 : 160, baselineEventThreshold: [8, 40][Int(seed % 2)])
            settings.faults = SyncFaultTests.plan(seed, partialUploadsReportSuccess: seed % 2 == 1)
            settings.encrypted = true
            let outcome = try await RandomSyncRun(seed: seed, settings: settings).run()
            #expect(outcome.failedSyncs > 0, "seed \(seed): the plan injected no failure a sync saw")
        }
    }
}

import Foundation
import Strata
import Testing
@testable import StrataSync

/// An app killed and relaunched: a new `Ensemble` over the same store and state must find
/// itself attached (a re-attach would export every object again under new identifiers).
@Suite struct SyncRelaunchTests {
    @Test func aNewEnsembleOverTheSameStateIsAttached() async throws {
        let model = try SyncTestModel.make()
        let cloud = MemoryCloudFileSystem()
        let device = try await SyncDevice(0, cloud: cloud, model: model, options: EnsembleOptions())
        try await device.ensemble.attach()
        let stateURL = await device.ensemble.stateURL
        var openError = ""
        do { _ = try SyncState(url: stateURL) } catch { openError = "\(error)" }
        #expect(openError.isEmpty, "opening the state a second time: \(openError)")
        try await device.relaunch()
        #expect(await device.ensemble.isAttached)
    }
}

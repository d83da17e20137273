import Foundation
import Strata
import StrataSync

/// A peer of an ensemble that saves and syncs in a loop, for the sync crash test
/// (Tests/StrataTests/SyncCrashTests.swift): each round inserts one uniquely identified
/// ``Entry``, saves ("saved <token>"), and syncs through a folder ("synced <round>"). The
/// store records its history; the ensemble attaches on the first run and its state survives
/// a kill beside the store.
struct SyncRole {
    let storePath: String
    let cloudPath: String
    let label: String
    let count: Int

    func run() async {
        do {
            var options = StoreOptions()
            options.recordsHistory = true
            let coordinator = try await StoreCoordinator(model: try ProbeModel.make(), store: .sqlite(URL(fileURLWithPath: storePath), options: options))
            let ensemble = try await Ensemble(identifier: "Probe", coordinator: coordinator,
                                              cloudFileSystem: LocalCloudFileSystem(rootDirectory: URL(fileURLWithPath: cloudPath)),
                                              globalIdentifiers: .attribute("token"))
            if await !ensemble.isAttached { try await ensemble.attach() }
            emit("attached")
            let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "sync-\(label)")
            let label = self.label
            for round in 1...count {
                let token = try await context.perform {
                    let entry = context.insert(Entry.self)
                    entry.token = "\(label)-\(UUID().uuidString)"
                    entry.writer = label
                    entry.sequence = Int64(round)
                    try context.save()
                    return entry.token
                }
                emit("saved \(token)")
                try await ensemble.sync()
                emit("synced \(round)")
            }
        } catch {
            fail("sync \(label): \(error)", status: 2)
        }
    }
}

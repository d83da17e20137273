import Foundation
import Strata
import StrataStacks
import StrataSync

/// The Core Data and sync glue of the seed app (its `CDEStack`): a main-context stack on a
/// store that records its history, and an ensemble over a shared folder that can be enabled,
/// disabled, reset from the cloud, or deleted everywhere.
final class SeedStack: Sendable {
    let stack: any CoreStack
    let ensemble: Ensemble

    /// Opens the store in `storeDirectory` and the ensemble over the folder `cloudDirectory`.
    init(storeDirectory: URL, cloudDirectory: URL) async throws {
        try FileManager.default.createDirectory(at: storeDirectory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: cloudDirectory, withIntermediateDirectories: true)
        var options = StackOptions()
        options.storeOptions.recordsHistory = true
        stack = try await Stacks.open(.mainContext, model: try ObjectModel(Entity.self),
                                      storeURL: storeDirectory.appending(path: "CDSyncENS.sqlite"), options: options)
        ensemble = try await Ensemble(identifier: "CDSyncENS", stack: stack,
                                      cloudFileSystem: LocalCloudFileSystem(rootDirectory: cloudDirectory),
                                      globalIdentifiers: .attribute("uniqueIdentifier"))
    }

    /// Every entity, oldest first.
    func fetchEntities() async throws -> [(name: String, descText: String)] {
        let main = stack.mainContext
        return try await main.perform {
            let request = FetchRequest<Entity>(sortKeys: [SortKey("creationDate"), SortKey("uniqueIdentifier")])
            return try main.fetch(request).map { ($0.name, $0.descText) }
        }
    }

    /// Adds an entity and saves.
    func add(name: String, descText: String) async throws {
        let main = stack.mainContext
        try await main.perform {
            let entity = main.insert(Entity.self)
            entity.name = name
            entity.descText = descText
        }
        try await stack.save()
        try await syncIfEnabled()
    }

    /// Renames the `index`th entity (oldest first) and saves.
    func rename(at index: Int, to name: String) async throws {
        try await withEntity(at: index) { $0.name = name }
    }

    /// Deletes the `index`th entity and saves.
    func delete(at index: Int) async throws {
        let main = stack.mainContext
        try await withEntity(at: index) { main.delete($0) }
    }

    private func withEntity(at index: Int, _ body: @escaping @Sendable (Entity) -> Void) async throws {
        let main = stack.mainContext
        try await main.perform {
            let request = FetchRequest<Entity>(sortKeys: [SortKey("creationDate"), SortKey("uniqueIdentifier")])
            let all = try main.fetch(request)
            guard all.indices.contains(index) else { throw SeedError("there is no entity \(index + 1)") }
            body(all[index])
        }
        try await stack.save()
        try await syncIfEnabled()
    }

    /// Whether sync is on (the ensemble is attached).
    var isSyncEnabled: Bool { get async { await ensemble.isAttached } }

    /// Turns sync on and merges what the cloud holds.
    func enableSync() async throws {
        try await ensemble.attach()
        try await ensemble.sync()
    }

    /// Turns sync off; the store keeps its entities.
    func disableSync() async throws { try await ensemble.detach() }

    /// Syncs when sync is on.
    func syncIfEnabled() async throws {
        if await ensemble.isAttached { try await ensemble.sync() }
    }

    /// Deletes the local store's entities and fills it again from the cloud.
    func deleteLocalAndResync() async throws { try await ensemble.deleteLocalDataAndResync() }

    /// Deletes the cloud's copy and this store's entities; sync is off afterwards.
    func deleteLocalAndRemote() async throws {
        try await ensemble.deleteEverything()
        _ = try stack.coordinator.execute(BatchDeleteRequest(entityName: "Entity"))
        let main = stack.mainContext
        try await main.perform { main.reset() }
    }
}

/// A mistake in a command, told to the user.
struct SeedError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

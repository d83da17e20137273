import Foundation
import Strata
import StrataSyncServers

/// One device syncing through S3 in these tests: its own store file (recording history), its
/// ensemble over its own `S3CloudFileSystem` (as two machines would have), and a context to
/// edit with. Authors have a unique identifier; each carries a count that edits raise.
final class S3SyncDevice: Sendable {
    let name: String
    let folder: URL
    let cloud: S3CloudFileSystem
    let coordinator: StoreCoordinator
    let ensemble: Ensemble
    let context: ObjectContext

    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Author", attributes: [
                AttributeDescription("uniqueIdentifier", type: .string),
                AttributeDescription("name", type: .string),
                AttributeDescription("count", type: .int64, defaultValue: .integer(0)),
            ]),
        ])
    }

    init(_ name: String, cloud: S3CloudFileSystem, model: ObjectModel) async throws {
        self.name = name
        self.cloud = cloud
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("strata-s3-device-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var storeOptions = StoreOptions()
        storeOptions.recordsHistory = true
        do {
            coordinator = try await StoreCoordinator(model: model, store: .sqlite(folder.appending(path: "store.sqlite"), options: storeOptions))
            ensemble = try await Ensemble(identifier: "Notes", coordinator: coordinator, cloudFileSystem: cloud,
                                          globalIdentifiers: .attribute("uniqueIdentifier"))
        } catch {
            try? FileManager.default.removeItem(at: folder)   // no deinit for a half-made device
            throw error
        }
        context = ObjectContext(.privateQueue, coordinator: coordinator, name: "edits-\(name)")
        context.mergePolicy = .mergeByPropertyObjectTrump
        context.automaticallyMergesChangesFromParent = true
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Inserts authors `identifiers` (name = identifier) and saves.
    func add(_ identifiers: [String]) async throws {
        let context = self.context
        try await context.perform {
            for identifier in identifiers {
                let author = try context.insert(entityNamed: "Author")
                try author.setValue(identifier, forKey: "uniqueIdentifier")
                try author.setValue(identifier, forKey: "name")
            }
            try context.save()
        }
    }

    /// Sets the count of the author `identifier` and saves.
    func setCount(_ identifier: String, _ count: Int) async throws {
        let context = self.context
        try await context.perform {
            let author = try context.fetch(FetchRequest<ManagedObject>(entityName: "Author"))
                .first { $0.primitiveValue(forKey: "uniqueIdentifier") == .string(identifier) }
            try author?.setValue(count, forKey: "count")
            try context.save()
        }
    }

    /// `identifier=count` for every author, sorted.
    func contents() async throws -> [String] {
        let context = self.context
        return try await context.perform {
            try context.fetch(FetchRequest<ManagedObject>(entityName: "Author")).map { author -> String in
                let id: String = if case .string(let text) = author.primitiveValue(forKey: "uniqueIdentifier") { text } else { "?" }
                let count: Int64 = if case .integer(let value) = author.primitiveValue(forKey: "count") { value } else { -1 }
                return "\(id)=\(count)"
            }.sorted()
        }
    }
}

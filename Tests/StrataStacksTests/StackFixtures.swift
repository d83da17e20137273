import Foundation
import Strata
import StrataStacks
import Testing

final class Item: ManagedObject {
    @Attribute("title") var title = ""
    @Attribute("rank") var rank: Int64 = 0
    @Attribute("uid", .unique) var uid = ""
    @Relationship("group", inverse: "items") var group: Group?
}

final class Group: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("items", inverse: "group", deleteRule: .cascade) var items: Set<Item>
}

let stackModel: ObjectModel = {
    do { return try ObjectModel(Item.self, Group.self) }
    catch { preconditionFailure("test model: \(error)") }  // programmer error: the test model is valid
}()

/// A store file in a fresh temporary directory.
final class StoreFile: @unchecked Sendable {  // safe: immutable after init
    let directory: URL
    let url: URL
    init() {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-stacks-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        url = directory.appendingPathComponent("store.sqlite")
    }
    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// Polls `condition` (on its own terms) until it holds or five seconds pass; merges into main
/// are asynchronous in some stacks.
func eventually(_ what: String, _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + .seconds(5)
    while ContinuousClock.now < deadline {
        if try await condition() { return }
        try await Task.sleep(for: .milliseconds(5))
    }
    Issue.record("timed out waiting for \(what)")
}

/// Rows of Item straight from the file, through a coordinator of its own.
func storedTitles(_ file: StoreFile) async throws -> [String: String] {
    let coordinator = try await StoreCoordinator(model: stackModel, store: .sqlite(file.url))
    let context = ObjectContext(.privateQueue, coordinator: coordinator)
    return try await context.perform {
        Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest<Item>()).map { ($0.uid, $0.title) })
    }
}

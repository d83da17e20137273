import Foundation
import Strata
@testable import StrataSync

/// The model the ensemble tests sync: authors (with a unique identifier) write books;
/// books carry tags (many-to-many); deleting an author deletes their books.
enum SyncTestModel {
    static func make() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Author", attributes: [
                AttributeDescription("uniqueIdentifier", type: .string),
                AttributeDescription("name", type: .string),
            ], relationships: [
                RelationshipDescription("books", destination: "Book", inverse: "author", isToMany: true, deleteRule: .cascade),
            ]),
            EntityDescription("Book", attributes: [
                AttributeDescription("title", type: .string),
                AttributeDescription("rating", type: .int64, defaultValue: .integer(0)),
                AttributeDescription("cover", type: .data),
            ], relationships: [
                RelationshipDescription("author", destination: "Author", inverse: "books"),
                RelationshipDescription("tags", destination: "Tag", inverse: "books", isToMany: true),
            ]),
            EntityDescription("Tag", attributes: [
                AttributeDescription("name", type: .string),
            ], relationships: [
                RelationshipDescription("books", destination: "Book", inverse: "tags", isToMany: true),
            ]),
        ])
    }
}

extension SyncTestModel {
    /// The same model with links into inheritance hierarchies: authors are `Author` (a
    /// concrete root), `Poet` or `Novelist`, so a book's `author` (kept on the book) points
    /// into a hierarchy; tags are `Genre` or `Mood` under an abstract `Tag`, so a book's
    /// `tags` (kept on the book) are members of several entities.
    static func makeHierarchy() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Author", attributes: [
                AttributeDescription("uniqueIdentifier", type: .string),
                AttributeDescription("name", type: .string),
            ], relationships: [
                RelationshipDescription("books", destination: "Book", inverse: "author", isToMany: true, deleteRule: .cascade),
            ]),
            EntityDescription("Poet", attributes: [AttributeDescription("verses", type: .int64, defaultValue: .integer(0))], superentity: "Author"),
            EntityDescription("Novelist", attributes: [AttributeDescription("novels", type: .int64, defaultValue: .integer(0))], superentity: "Author"),
            EntityDescription("Book", attributes: [
                AttributeDescription("title", type: .string),
                AttributeDescription("rating", type: .int64, defaultValue: .integer(0)),
                AttributeDescription("cover", type: .data),
            ], relationships: [
                RelationshipDescription("author", destination: "Author", inverse: "books"),
                RelationshipDescription("tags", destination: "Tag", inverse: "books", isToMany: true),
            ]),
            EntityDescription("Tag", attributes: [
                AttributeDescription("name", type: .string),
            ], relationships: [
                RelationshipDescription("books", destination: "Book", inverse: "tags", isToMany: true),
            ], isAbstract: true),
            EntityDescription("Genre", attributes: [], superentity: "Tag"),
            EntityDescription("Mood", attributes: [], superentity: "Tag"),
        ])
    }
}

/// One device: its own store file (recording history), its ensemble, and a context to edit with.
final class SyncPeer: Sendable {
    let name: String
    let folder: TemporaryFolder
    let coordinator: StoreCoordinator
    let ensemble: Ensemble
    let context: ObjectContext

    init(_ name: String, cloud: any CloudFileSystem, model: ObjectModel, identifiers: GlobalIdentifiers = .attribute("uniqueIdentifier"),
         options: EnsembleOptions = EnsembleOptions()) async throws {
        self.name = name
        folder = TemporaryFolder("peer-\(name)")
        var storeOptions = StoreOptions()
        storeOptions.recordsHistory = true
        coordinator = try await StoreCoordinator(model: model, store: .sqlite(folder.url.appending(path: "store.sqlite"), options: storeOptions))
        ensemble = try await Ensemble(identifier: "TestEnsemble", coordinator: coordinator, cloudFileSystem: cloud,
                                      globalIdentifiers: identifiers, options: options)
        context = ObjectContext(.privateQueue, coordinator: coordinator, name: "edits-\(name)")
        context.mergePolicy = .mergeByPropertyObjectTrump
        context.automaticallyMergesChangesFromParent = true
    }

    /// Devices "a" and "b" with the test model on one cloud, not attached yet.
    static func pair(_ cloud: any CloudFileSystem) async throws -> (SyncPeer, SyncPeer) {
        let model = try SyncTestModel.make()
        return (try await SyncPeer("a", cloud: cloud, model: model), try await SyncPeer("b", cloud: cloud, model: model))
    }

    /// Runs `body` on the edit context and saves.
    func edit(_ body: @escaping @Sendable (ObjectContext) throws -> Void) async throws {
        let context = self.context
        try await context.perform {
            try body(context)
            try context.save()
        }
    }

    /// The objects of `entity` whose `key` equals `value`.
    func objects(_ entity: String, where key: String, is value: PropertyValue) async throws -> [ObjectID] {
        let context = self.context
        return try await context.perform {
            try context.fetch(FetchRequest<ManagedObject>(entityName: entity)).filter { $0.primitiveValue(forKey: key) == value }.map(\.objectID)
        }
    }

    func count(_ entity: String) async throws -> Int {
        let context = self.context
        return try await context.perform { try context.count(for: FetchRequest<ManagedObject>(entityName: entity)) }
    }

    func dump() async throws -> String { try await ensemble.canonicalDump() }
}

extension ObjectContext {
    /// Inserts an object of `entity` with `values`.
    @discardableResult
    func make(_ entity: String, _ values: [String: Any]) throws -> ManagedObject {
        let object = try insert(entityNamed: entity)
        for (key, value) in values { try object.setValue(value, forKey: key) }
        return object
    }

    /// The first object of `entity` whose `key` is `value`.
    func first(_ entity: String, _ key: String, _ value: PropertyValue) throws -> ManagedObject? {
        try fetch(FetchRequest<ManagedObject>(entityName: entity)).first { $0.primitiveValue(forKey: key) == value }
    }
}

import Foundation
import Strata
import Testing
@testable import StrataSync

/// Objects of subentities sync under their own entity, and a relationship to an abstract
/// superentity carries objects of every kind to the other peer.
@Suite struct SyncInheritanceTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Author", attributes: [
                AttributeDescription("uniqueIdentifier", type: .string),
                AttributeDescription("name", type: .string),
            ], relationships: [
                RelationshipDescription("items", destination: "Item", inverse: "author", isToMany: true, deleteRule: .cascade),
            ]),
            EntityDescription("Item", attributes: [AttributeDescription("title", type: .string)], relationships: [
                RelationshipDescription("author", destination: "Author", inverse: "items"),
            ], isAbstract: true),
            EntityDescription("Book", attributes: [AttributeDescription("pages", type: .int64, defaultValue: .integer(0))], superentity: "Item"),
            EntityDescription("Disc", attributes: [AttributeDescription("minutes", type: .int64, defaultValue: .integer(0))], superentity: "Item"),
        ])
    }

    /// A relationship kept on the side that points at an entity with subentities syncs (until
    /// 2026-11-25 the ensemble refused it up front with `storeNotSyncable`).
    @Test func aKeptLinkIntoAnAbstractSuperentitySyncs() async throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Shelf", attributes: [AttributeDescription("name", type: .string)], relationships: [
                RelationshipDescription("favourite", destination: "Item", inverse: "favouriteOf"),
            ]),
            EntityDescription("Item", attributes: [AttributeDescription("title", type: .string)], relationships: [
                RelationshipDescription("favouriteOf", destination: "Shelf", inverse: "favourite", isToMany: true),
            ], isAbstract: true),
            EntityDescription("Book", attributes: [AttributeDescription("pages", type: .int64, defaultValue: .integer(0))], superentity: "Item"),
        ])
        let cloud = MemoryCloudFileSystem()
        let a = try await SyncPeer("a", cloud: cloud, model: model), b = try await SyncPeer("b", cloud: cloud, model: model)
        try await a.edit { context in
            let shelf = try context.make("Shelf", ["name": "top"])
            try shelf.setValue(try context.make("Book", ["title": "Solaris", "pages": 204]), forKey: "favourite")
        }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await b.ensemble.sync()
        let favourite = try await b.context.perform {
            let shelf = try #require(try b.context.first("Shelf", "name", .string("top")))
            return (shelf.value(forKey: "favourite") as? ManagedObject).map { "\($0.entity.name) \($0.primitiveValue(forKey: "title"))" }
        }
        #expect(favourite == "Book \"Solaris\"")
        #expect(try await a.dump() == b.dump())
    }

    @Test func subentityObjectsAndARelationshipToTheirSuperentitySync() async throws {
        let cloud = MemoryCloudFileSystem()
        let model = try Self.model()
        let a = try await SyncPeer("a", cloud: cloud, model: model), b = try await SyncPeer("b", cloud: cloud, model: model)
        try await a.edit { context in
            let author = try context.make("Author", ["uniqueIdentifier": "ursula", "name": "Ursula"])
            let book = try context.make("Book", ["title": "The Dispossessed", "pages": 387])
            let disc = try context.make("Disc", ["title": "Reading", "minutes": 61])
            try author.setValue(Set([book, disc]), forKey: "items")
        }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        try await a.ensemble.sync()
        try await b.ensemble.sync()
        #expect(try await b.count("Item") == 2)
        #expect(try await b.count("Book") == 1)
        #expect(try await b.count("Disc") == 1)
        #expect(try await a.dump() == b.dump())
        let kinds = try await b.context.perform { () throws -> Set<String> in
            let author = try #require(try b.context.first("Author", "name", .string("Ursula")))
            let items = try #require(author.value(forKey: "items") as? Set<ManagedObject>)
            return Set(items.map { "\($0.entity.name):\($0.primitiveValue(forKey: "title"))" })
        }
        #expect(kinds.count == 2 && kinds.contains { $0.hasPrefix("Book:") } && kinds.contains { $0.hasPrefix("Disc:") })
        // A delete on b cascades through the superentity's relationship on a.
        let authorOnB = try await b.objects("Author", where: "name", is: .string("Ursula"))
        try await b.edit { context in context.delete(try context.existingObject(with: authorOnB[0])) }
        try await b.ensemble.sync()
        try await a.ensemble.sync()
        #expect(try await a.count("Item") == 0)
        #expect(try await a.dump() == b.dump())
    }
}

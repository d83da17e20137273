import Foundation
import GRDB
import Testing
@testable import Strata

// A typed model in two versions: version 2 renames the entity, an attribute and a relationship
// with the renaming identifiers of the wrappers and of the class.
final class ShelfV1: ManagedObject {
    override class var entityName: String { "Shelf" }
    @Attribute("label") var label = ""
    @Relationship("books", inverse: "shelf") var books: Set<BookV1>
}

final class BookV1: ManagedObject {
    override class var entityName: String { "Book" }
    @Attribute("name") var name = ""
    @Relationship("shelf", inverse: "books") var shelf: ShelfV1?
}

final class ShelfV2: ManagedObject {
    override class var entityName: String { "Shelf" }
    @Attribute("label") var label = ""
    @Relationship("volumes", inverse: "location", renamedFrom: "books") var volumes: Set<VolumeV2>
}

final class VolumeV2: ManagedObject {
    override class var entityName: String { "Volume" }
    override class var entityRenamedFrom: String? { "Book" }
    @Attribute("title", renamedFrom: "name") var title = ""
    @Attribute("pages") var pages: Int64 = 100
    @Relationship("location", inverse: "volumes", renamedFrom: "shelf") var location: ShelfV2?
}

/// Renames declared in the model keep the data: entities, attributes, to-one and to-many
/// relationships (foreign keys and join tables).
@Suite struct MigrationRenameTests {
    @Test func typedRenamesKeepTheData() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        do {
            let coordinator = try await StoreCoordinator(model: try ObjectModel(ShelfV1.self, BookV1.self), store: .sqlite(url))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                let shelf = context.insert(ShelfV1.self)
                shelf.label = "fiction"
                for name in ["Dune", "Emma"] {
                    let book = context.insert(BookV1.self)
                    book.name = name
                    book.shelf = shelf
                }
                try context.save()
            }
            try coordinator.close()
        }
        let v2 = try ObjectModel(ShelfV2.self, VolumeV2.self)
        #expect(v2.entity(named: "Volume")?.renamingIdentifier == "Book")
        #expect(v2.entity(named: "Volume")?.attribute(named: "title")?.renamingIdentifier == "name")
        #expect(v2.entity(named: "Volume")?.relationship(named: "location")?.renamingIdentifier == "shelf")
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        defer { try? coordinator.close() }
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let volumes = try context.fetch(FetchRequest<VolumeV2>(sortKeys: [SortKey("title")]))
            #expect(volumes.map(\.title) == ["Dune", "Emma"])
            #expect(volumes.map(\.pages) == [100, 100])
            #expect(volumes.map { $0.location?.label } == ["fiction", "fiction"])
            let shelf = try #require(try context.fetch(FetchRequest<ShelfV2>()).first)
            #expect(Set(shelf.volumes.map(\.title)) == ["Dune", "Emma"])
        }
        #expect(try coordinator.migrationHistory().last?.changes.contains("rename entity Book to Volume") == true)
        #expect(try coordinator.migrationHistory().last?.changes.contains("rename Volume.name to title") == true)
    }

    /// Many-to-many: renaming the entity that owned the join table hands it to the other side
    /// (the owner is the first by name), so the table is copied with its columns swapped.
    @Test func joinTableSurvivesRenamesThatTurnItAround() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(
            EntityDescription("Note", attributes: [Fixture.string("title")], relationships: [
                RelationshipDescription("tags", destination: "Tag", inverse: "notes", isToMany: true, isOrdered: true)]),
            EntityDescription("Tag", attributes: [Fixture.string("label")], relationships: [
                RelationshipDescription("notes", destination: "Note", inverse: "tags", isToMany: true)]))
        do {
            let coordinator = try await StoreCoordinator(model: v1, store: .sqlite(url))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                let tags = try ["red", "green", "blue"].map { label in
                    let tag = try context.insert(entityNamed: "Tag")
                    tag["label"] = label
                    return tag
                }
                let note = try context.insert(entityNamed: "Note")
                note["title"] = "n"
                note["tags"] = [tags[2], tags[0], tags[1]]
                try context.save()
            }
            try coordinator.close()
        }
        #expect(try Fixture.tables(url).contains("_join_Note_tags"))
        // Note → Zettel (now after Tag by name) and tags → labels.
        let v2 = try Fixture.model(
            EntityDescription("Zettel", attributes: [Fixture.string("heading", renamedFrom: "title")], relationships: [
                RelationshipDescription("labels", destination: "Tag", inverse: "zettels", isToMany: true, isOrdered: true, renamingIdentifier: "tags")],
                renamingIdentifier: "Note"),
            EntityDescription("Tag", attributes: [Fixture.string("label")], relationships: [
                RelationshipDescription("zettels", destination: "Zettel", inverse: "labels", isToMany: true, renamingIdentifier: "notes")]))
        try await Fixture.objects(url, v2, "Zettel") { zettels in
            let zettel = try #require(zettels.first)
            #expect(zettel["heading"] as? String == "n")
            let labels = try #require(zettel["labels"] as? [ManagedObject])
            #expect(labels.map { $0["label"] as? String } == ["blue", "red", "green"])
        }
        let tables = try Fixture.tables(url)
        #expect(tables.contains("_join_Tag_zettels"))
        #expect(!tables.contains("_join_Note_tags"))
        #expect(!tables.contains("Note"))
        #expect(try Fixture.rows(url, "PRAGMA foreign_key_check").isEmpty)
    }

    @Test func renamedAttributeKeepsItsIndexAndUniqueness() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("code", unique: true)]))
        try await Fixture.seed(url, v1, "Item", [["code": .string("a")], ["code": .string("b")]])
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("sku", unique: true, renamedFrom: "code")]))
        try await Fixture.open(url, v2)
        #expect(try Fixture.rows(url, "SELECT sku FROM Item ORDER BY _id").map { $0["sku"] as String } == ["a", "b"])
        let indexes = try Fixture.rows(url, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Item'").map { $0["name"] as String }
        #expect(indexes == ["_idx_Item_sku"])
    }

    @Test func swappedAttributeNamesKeepTheirValues() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("first"), Fixture.string("last")]))
        try await Fixture.seed(url, v1, "Item", [["first": .string("Ada"), "last": .string("Lovelace")]])
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [
            Fixture.string("first", renamedFrom: "last"), Fixture.string("last", renamedFrom: "first"),
        ]))
        try await Fixture.objects(url, v2, "Item") { items in
            #expect(items.first?["first"] as? String == "Lovelace")
            #expect(items.first?["last"] as? String == "Ada")
        }
        // A later version drops the renaming identifiers: its hash is version 1's again, yet
        // it is not a downgrade (the store holds nothing it does not know) and nothing swaps back.
        #expect(v1.versionHash != v2.versionHash)
        try await Fixture.objects(url, v1, "Item") { items in
            #expect(items.first?["first"] as? String == "Lovelace")
        }
    }
}

/// Two entities that swap names keep their rows, and their primary-key counters follow them.
@Suite struct MigrationEntitySwapTests {
    @Test func swappedEntityNamesKeepRowsAndKeyCounters() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Cat", attributes: [Fixture.string("name")]),
                                   EntityDescription("Dog", attributes: [Fixture.string("name")]))
        do {
            let coordinator = try await StoreCoordinator(model: v1, store: .sqlite(url))
            _ = try coordinator.execute(BatchInsertRequest(entityName: "Cat", objects: [["name": .string("Tom")]]))
            _ = try coordinator.execute(BatchInsertRequest(entityName: "Dog", objects: [["name": .string("Rex")], ["name": .string("Fido")]]))
            try coordinator.close()
        }
        let v2 = try Fixture.model(EntityDescription("Cat", attributes: [Fixture.string("name")], renamingIdentifier: "Dog"),
                                   EntityDescription("Dog", attributes: [Fixture.string("name")], renamingIdentifier: "Cat"))
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        defer { try? coordinator.close() }
        // The former dogs are cats now; a new cat gets the key after the dogs' last one.
        let ids = try coordinator.execute(BatchInsertRequest(entityName: "Cat", objects: [["name": .string("Felix")]]))
        #expect(ids.first?.key == 3)
        #expect(try Fixture.rows(url, "SELECT name FROM Cat ORDER BY _id").map { $0["name"] as String } == ["Rex", "Fido", "Felix"])
        #expect(try Fixture.rows(url, "SELECT name FROM Dog").map { $0["name"] as String } == ["Tom"])
        #expect(try Fixture.rows(url, "SELECT max_key FROM _strata_keys WHERE entity = 'Dog'").first?["max_key"] == 1)
    }
}

/// A to-one whose inverse is ordered keeps its targets and their order when it is renamed (its
/// foreign key and its order column are renamed together).
@Suite struct MigrationOrderedRenameTests {
    @Test func renamedToOneKeepsTheOrderOfItsInverse() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        func model(_ key: String, renamedFrom: String? = nil) throws -> ObjectModel {
            try Fixture.model(
                EntityDescription("Person", attributes: [Fixture.string("name")], relationships: [
                    RelationshipDescription("playlist", destination: "Track", inverse: key, isToMany: true, isOrdered: true)]),
                EntityDescription("Track", attributes: [Fixture.string("title")], relationships: [
                    RelationshipDescription(key, destination: "Person", inverse: "playlist", renamingIdentifier: renamedFrom)]))
        }
        do {
            let coordinator = try await StoreCoordinator(model: try model("person"), store: .sqlite(url))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                let person = try context.insert(entityNamed: "Person")
                person["name"] = "Ada"
                let tracks = try ["one", "two", "three"].map { title in
                    let track = try context.insert(entityNamed: "Track")
                    track["title"] = title
                    return track
                }
                person["playlist"] = [tracks[2], tracks[0], tracks[1]]
                try context.save()
            }
            try coordinator.close()
        }
        try await Fixture.objects(url, try model("listener", renamedFrom: "person"), "Person") { people in
            let playlist = try #require(people.first?["playlist"] as? [ManagedObject])
            #expect(playlist.map { $0["title"] as? String } == ["three", "one", "two"])
            #expect(playlist.allSatisfy { ($0["listener"] as? ManagedObject)?["name"] as? String == "Ada" })
        }
        #expect(try Fixture.columns(url, "Track") == ["_id", "_version", "title", "listener", "_order_listener"])
    }
}

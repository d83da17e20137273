import Foundation
import GRDB
import Testing
@testable import Strata

/// Each change a lightweight migration infers, on a real file: the rows survive and the store
/// opens with the new model.
@Suite struct MigrationTests {
    let item = EntityDescription("Item", attributes: [Fixture.string("name")])
    let names: [[String: PropertyValue]] = [["name": .string("a")], ["name": .string("b")], ["name": .string("c")]]

    @Test func addedOptionalAttributeKeepsRows() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item), "Item", names)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("note")]))
        try await Fixture.objects(url, v2, "Item") { objects in
            #expect(objects.map { $0["name"] as? String } == ["a", "b", "c"])
            #expect(objects.allSatisfy { $0["note"] == nil })
        }
    }

    @Test func addedAttributeWithDefaultFillsRowsInPlace() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item), "Item", names)
        let rating = AttributeDescription("rating", type: .int64, isOptional: false, defaultValue: .integer(3))
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), rating]))
        try await Fixture.objects(url, v2, "Item") { objects in
            #expect(objects.map { $0["name"] as? String } == ["a", "b", "c"])
            #expect(objects.map { $0["rating"] as? Int64 } == [3, 3, 3])
        }
        // ALTER TABLE ADD COLUMN keeps the default in the table's definition; a rebuilt table would not.
        let sql: String = try #require(try Fixture.rows(url, "SELECT sql FROM sqlite_master WHERE name = 'Item'").first)["sql"]
        #expect(sql.contains("\"rating\" INTEGER DEFAULT 3"), "\(sql)")
        #expect(!FileManager.default.fileExists(atPath: StoreMigrator.backupPath(for: url.path)))
    }

    @Test func removedAttributeAndEntityAreDropped() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("old", indexed: true)]),
                                   EntityDescription("Gone", attributes: [Fixture.string("x")]))
        try await Fixture.seed(url, v1, "Item", [["name": .string("a"), "old": .string("z")]])
        try await Fixture.open(url, try Fixture.model(item))
        #expect(try Fixture.columns(url, "Item") == ["_id", "_version", "name"])
        #expect(!(try Fixture.tables(url)).contains("Gone"))
        #expect(try Fixture.rows(url, "SELECT name FROM Item").map { $0["name"] as String } == ["a"])
    }

    @Test func addedEntityGetsATableAndOldRowsStay() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item), "Item", names)
        let v2 = try Fixture.model(item, EntityDescription("Label", attributes: [Fixture.string("text", unique: true)]))
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Label", objects: [["text": .string("red")]]))
        try coordinator.close()
        #expect(try Fixture.rows(url, "SELECT text FROM Label").map { $0["text"] as String } == ["red"])
        #expect(try Fixture.rows(url, "SELECT COUNT(*) AS n FROM Item").first?["n"] == 3)
    }

    @Test func integerWideningKeepsValues() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Item", attributes: [AttributeDescription("count", type: .int16)]))
        try await Fixture.seed(url, v1, "Item", [["count": .integer(7)], ["count": .integer(-300)]])
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [AttributeDescription("count", type: .int64)]))
        try await Fixture.objects(url, v2, "Item") { objects in
            #expect(objects.map { $0["count"] as? Int64 } == [7, -300])
        }
    }

    @Test func attributeMadeOptionalAndRequiredWithDefault() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Item", attributes: [
            Fixture.string("name", optional: false, default: .string("")), Fixture.string("tag"),
        ]))
        try await Fixture.seed(url, v1, "Item", [["name": .string("a"), "tag": .string("t")], ["name": .string("b")]])
        // name becomes optional (no SQL change), tag required with a default that fills the nil.
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [
            Fixture.string("name"), Fixture.string("tag", optional: false, default: .string("none")),
        ]))
        try await Fixture.objects(url, v2, "Item") { objects in
            #expect(objects.map { $0["name"] as? String } == ["a", "b"])
            #expect(objects.map { $0["tag"] as? String } == ["t", "none"])
        }
    }

    @Test func indexAndUniquenessAdded() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("code")]))
        try await Fixture.seed(url, v1, "Item", [["name": .string("a"), "code": .string("x")], ["name": .string("a"), "code": .string("y")], ["name": .string("b")], ["name": .string("c")]])
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name", indexed: true), Fixture.string("code", unique: true)]))
        try await Fixture.open(url, v2)
        let indexes = try Fixture.rows(url, "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Item'")
        #expect(indexes.contains { ($0["name"] as String) == "_idx_Item_name" })
        #expect(indexes.contains { ($0["name"] as String) == "_idx_Item_code" && ($0["sql"] as String).contains("UNIQUE") })
        // The constraint holds from now on: a duplicate code is refused.
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        defer { try? coordinator.close() }
        #expect(throws: StrataError.self) { _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: [["code": .string("x")]])) }
    }

    @Test func relationshipsAddedThenRemoved() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let folder = EntityDescription("Folder", attributes: [Fixture.string("name")])
        let note = EntityDescription("Note", attributes: [Fixture.string("title")])
        let tag = EntityDescription("Tag", attributes: [Fixture.string("label")])
        let v1 = try Fixture.model(folder, note, tag)
        try await Fixture.seed(url, v1, "Note", [["title": .string("n1")], ["title": .string("n2")]])
        // v2: one-to-many with an ordered to-many (foreign key + order column) and a many-to-many (join table).
        let v2 = try Fixture.model(
            EntityDescription("Folder", attributes: [Fixture.string("name")], relationships: [
                RelationshipDescription("notes", destination: "Note", inverse: "folder", isToMany: true, isOrdered: true)]),
            EntityDescription("Note", attributes: [Fixture.string("title")], relationships: [
                RelationshipDescription("folder", destination: "Folder", inverse: "notes"),
                RelationshipDescription("tags", destination: "Tag", inverse: "notes", isToMany: true)]),
            EntityDescription("Tag", attributes: [Fixture.string("label")], relationships: [
                RelationshipDescription("notes", destination: "Note", inverse: "tags", isToMany: true)]))
        do {
            let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                let notes = try context.fetch(FetchRequest<ManagedObject>(entityName: "Note")).sorted { $0.objectID.key < $1.objectID.key }
                #expect(notes.map { $0["title"] as? String } == ["n1", "n2"])
                let f = try context.insert(entityNamed: "Folder")
                f["name"] = "inbox"
                f["notes"] = [notes[1], notes[0]]
                let t = try context.insert(entityNamed: "Tag")
                t["label"] = "red"
                t["notes"] = Set(notes)
                try context.save()
            }
            try coordinator.close()
        }
        #expect(try Fixture.columns(url, "Note") == ["_id", "_version", "title", "folder", "_order_folder"])
        #expect(try Fixture.rows(url, "SELECT COUNT(*) AS n FROM _join_Note_tags").first?["n"] == 2)
        try await Fixture.objects(url, v2, "Folder") { folders in
            let notes = try #require(folders.first?["notes"] as? [ManagedObject])
            #expect(notes.map { $0["title"] as? String } == ["n2", "n1"])
        }
        // Back to no relationships: the foreign key and order columns and the join table go, the rows stay.
        let v3 = try Fixture.model(folder, note, tag, EntityDescription("Extra", attributes: [Fixture.string("x")]))
        try await Fixture.open(url, v3)
        #expect(try Fixture.columns(url, "Note") == ["_id", "_version", "title"])
        #expect(!(try Fixture.tables(url)).contains("_join_Note_tags"))
        #expect(try Fixture.rows(url, "SELECT title FROM Note ORDER BY _id").map { $0["title"] as String } == ["n1", "n2"])
        #expect(try Fixture.rows(url, "SELECT name FROM Folder").map { $0["name"] as String } == ["inbox"])
        #expect(try Fixture.rows(url, "PRAGMA integrity_check").first?[0] == "ok")
    }

    @Test func historyRecordsCreationAndEachMigration() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let v1 = try Fixture.model(item)
        try await Fixture.seed(url, v1, "Item", names)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("note")]))
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        defer { try? coordinator.close() }
        let history = try coordinator.migrationHistory()
        #expect(history.count == 2)
        #expect(history.first?.fromHash == nil)
        #expect(history.first?.toHash == v1.versionHash)
        #expect(history.last?.fromHash == v1.versionHash)
        #expect(history.last?.toHash == v2.versionHash)
        #expect(history.last?.changes == ["add Item.note"])
        let schema: String? = try await coordinator.database.read {
            try String.fetchOne($0, sql: "SELECT value FROM _strata_metadata WHERE key = 'modelSchema'")
        }
        #expect(schema == StoredSchema(v2).json)
    }

    @Test func coordinatorsOpeningAnOldStoreAtOnceMigrateItOnce() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item), "Item", names)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("note", default: .string("n"))]))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { try await Fixture.open(url, v2) } }
            try await group.waitForAll()
        }
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        defer { try? coordinator.close() }
        #expect(try coordinator.migrationHistory().count == 2)
        #expect(try Fixture.rows(url, "SELECT note FROM Item").map { $0["note"] as String } == ["n", "n", "n"])
    }
}

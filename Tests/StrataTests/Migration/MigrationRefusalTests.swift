import Foundation
import GRDB
import Testing
@testable import Strata

/// What a lightweight migration refuses: each is a typed error naming the entity and key, and
/// the file stays byte for byte as it was.
@Suite struct MigrationRefusalTests {
    let item = EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("code")])
    let rows: [[String: PropertyValue]] = [
        ["name": .string("a"), "code": .string("x")], ["name": .string("b")], ["name": .string("c"), "code": .string("x")],
        ["name": .string("d"), "code": .string("y")],
    ]

    func seeded(_ dir: TemporaryDirectory) async throws -> URL {
        let url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item), "Item", rows)
        return url
    }

    @Test func typeChangeThatLosesDataIsMigrationRequired() async throws {
        let dir = TemporaryDirectory(), url = try await seeded(dir)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), AttributeDescription("code", type: .int64)]))
        let error = try await Fixture.expectRefusal(url, v2, .migrationRequired)
        #expect(error?.entity == "Item")
        #expect(error?.key == "code")
        #expect(error?.message.contains("string to int64") == true)
    }

    @Test func narrowingAnIntegerIsMigrationRequired() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(EntityDescription("Item", attributes: [AttributeDescription("n", type: .int64)])), "Item", [["n": .integer(1 << 40)]])
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [AttributeDescription("n", type: .int16)]))
        #expect(try await Fixture.expectRefusal(url, v2, .migrationRequired)?.key == "n")
    }

    @Test func requiredAttributeAddedWithoutDefaultIsMigrationRequired() async throws {
        let dir = TemporaryDirectory(), url = try await seeded(dir)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [
            Fixture.string("name"), Fixture.string("code"), AttributeDescription("rank", type: .int64, isOptional: false),
        ]))
        let error = try await Fixture.expectRefusal(url, v2, .migrationRequired)
        #expect(error?.entity == "Item")
        #expect(error?.key == "rank")
        #expect(error?.message.contains("default") == true)
    }

    @Test func relationshipCardinalityChangeIsMigrationRequired() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        func model(_ toMany: Bool) throws -> ObjectModel {
            try Fixture.model(
                EntityDescription("Folder", attributes: [Fixture.string("name")], relationships: [
                    RelationshipDescription("notes", destination: "Note", inverse: "folders", isToMany: true)]),
                EntityDescription("Note", attributes: [Fixture.string("title")], relationships: [
                    RelationshipDescription("folders", destination: "Folder", inverse: "notes", isToMany: toMany)]))
        }
        try await Fixture.open(url, try model(false))
        let error = try await Fixture.expectRefusal(url, try model(true), .migrationRequired)
        #expect(error?.key == "folders" || error?.key == "notes")
    }

    @Test func uniquenessViolatedByRowsNamesThem() async throws {
        let dir = TemporaryDirectory(), url = try await seeded(dir)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("code", unique: true)]))
        let error = try await Fixture.expectRefusal(url, v2, .migrationFailed)
        #expect(error?.entity == "Item")
        #expect(error?.key == "code")
        // Rows 1 and 3 share "x"; row 2's nil and row 4's "y" are fine.
        #expect(error?.message.contains("rows 1 and 3") == true, "\(String(describing: error))")
        #expect(error?.message.contains("\"x\"") == true)
        #expect(error?.objectID?.key == 1)
    }

    @Test func nilsInAnAttributeMadeRequiredWithoutDefaultAreMigrationFailed() async throws {
        let dir = TemporaryDirectory(), url = try await seeded(dir)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("code", optional: false)]))
        let error = try await Fixture.expectRefusal(url, v2, .migrationFailed)
        #expect(error?.key == "code")
        #expect(error?.message.contains("row 2 ") == true, "\(String(describing: error))")
    }

    @Test func automaticMigrationOffIsModelMismatch() async throws {
        let dir = TemporaryDirectory(), url = try await seeded(dir)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("code"), Fixture.string("note")]))
        var options = StoreOptions()
        options.migratesAutomatically = false
        let error = try await Fixture.expectRefusal(url, v2, .modelMismatch, options: options)
        #expect(error?.message.contains("automatic migration is off") == true)
        // The same change migrates with the option on.
        try await Fixture.open(url, v2)
    }

    @Test func storeMigratedByANewerModelIsRefused() async throws {
        let dir = TemporaryDirectory(), url = try await seeded(dir)
        let v1 = try Fixture.model(item)
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("code"), Fixture.string("note")]))
        try await Fixture.open(url, v2)
        let error = try await Fixture.expectRefusal(url, v1, .storeTooNew)
        #expect(error?.message.contains("never downgrades") == true)
        // Even with automatic migration off, the answer is the clearer one.
        var options = StoreOptions()
        options.migratesAutomatically = false
        try await Fixture.expectRefusal(url, v1, .storeTooNew, options: options)
    }

    @Test func storeWithoutRecordedSchemaIsModelMismatchUntilOpenedWithItsModel() async throws {
        let dir = TemporaryDirectory(), url = try await seeded(dir)
        // Make it look like a store from before schemas were recorded.
        do {
            let queue = try DatabaseQueue(path: url.path)
            try await queue.write { db in
                try db.execute(sql: "DELETE FROM _strata_metadata WHERE key = 'modelSchema'")
                try db.execute(sql: "DROP TABLE _strata_migrations")
            }
            try queue.close()
        }
        let v2 = try Fixture.model(EntityDescription("Item", attributes: [Fixture.string("name"), Fixture.string("code"), Fixture.string("note")]))
        let error = try await Fixture.expectRefusal(url, v2, .modelMismatch)
        #expect(error?.message.contains("predates recorded schemas") == true)
        // Opening it with its own model records the schema; then it migrates.
        try await Fixture.open(url, try Fixture.model(item))
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        defer { try? coordinator.close() }
        #expect(try coordinator.migrationHistory().map(\.changes) == [["record schema"], ["add Item.note"]])
    }

    @Test func storeSharingNoEntityIsModelMismatch() async throws {
        let dir = TemporaryDirectory(), url = try await seeded(dir)
        let other = try Fixture.model(EntityDescription("Invoice", attributes: [Fixture.string("number")]))
        let error = try await Fixture.expectRefusal(url, other, .modelMismatch)
        #expect(error?.message.contains("shares no entity") == true)
    }

    /// Moving an existing entity into a hierarchy, out of one, or under another superentity
    /// (Core Data needs a mapping model for these too); every other hierarchy change migrates
    /// (`MigrationInheritanceTests`).
    @Test func movingAnEntityIntoOutOfOrWithinAHierarchyIsMigrationRequired() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await HierarchyFixture.seed(url)
        // Album, a plain entity, under Attachment.
        var into = HierarchyFixture.base()
        into["Album"] = EntityDescription("Album", attributes: [Fixture.string("title")], relationships: [
            RelationshipDescription("photos", destination: "Photo", inverse: "album", isToMany: true)], superentity: "Attachment")
        // Clip from under Video to under Attachment.
        var across = HierarchyFixture.base()
        across["Clip"] = EntityDescription("Clip", attributes: [Fixture.string("source")], superentity: "Attachment")
        // Photo out of the hierarchy.
        var out = HierarchyFixture.base()
        out["Photo"] = EntityDescription("Photo", attributes: [
            AttributeDescription("width", type: .int64, defaultValue: .integer(0)), AttributeDescription("caption", type: .string, isSearchable: true),
        ], relationships: [RelationshipDescription("album", destination: "Album", inverse: "photos")])
        // A new superentity above the root.
        var above = HierarchyFixture.base()
        above["Item"] = EntityDescription("Item", attributes: [Fixture.string("label")])
        above["Attachment"] = EntityDescription("Attachment", attributes: [
            AttributeDescription("name", type: .string, isSearchable: true), AttributeDescription("size", type: .int64, defaultValue: .integer(0)),
            AttributeDescription("checksum", type: .string, isUnique: true),
        ], relationships: HierarchyFixture.attachment().relationships, superentity: "Item", isAbstract: true)
        for (entities, entity, words) in [(into, "Album", "had no superentity"), (across, "Clip", "was a subentity of Video"),
                                          (out, "Photo", "has no superentity"), (above, "Attachment", "is a subentity of Item")] {
            let error = try await Fixture.expectRefusal(url, try HierarchyFixture.model(entities), .migrationRequired)
            #expect(error?.entity == entity && error?.message.contains(words) == true && error?.message.contains("mapping model") == true,
                    "\(String(describing: error))")
        }
    }
}

/// A migration that fails once under way (here: a copied table would keep a dangling foreign
/// key that another program wrote) rolls back, keeps the store's rows and the backup copy.
@Suite struct MigrationFailureTests {
    @Test func failureDuringMigrationRollsBackAndKeepsTheBackup() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        let folder = EntityDescription("Folder", attributes: [Fixture.string("name")], relationships: [
            RelationshipDescription("notes", destination: "Note", inverse: "folder", isToMany: true),
            RelationshipDescription("pinned", destination: "Note", inverse: "pinnedIn", isToMany: true)])
        let v1 = try Fixture.model(folder, EntityDescription("Note", attributes: [Fixture.string("title")], relationships: [
            RelationshipDescription("folder", destination: "Folder", inverse: "notes"),
            RelationshipDescription("pinnedIn", destination: "Folder", inverse: "pinned")]))
        try await Fixture.seed(url, v1, "Note", [["title": .string("a")]])
        do {
            var configuration = Configuration()
            configuration.foreignKeysEnabled = false
            let queue = try DatabaseQueue(path: url.path, configuration: configuration)
            try await queue.write { try $0.execute(sql: "UPDATE Note SET folder = 999") }
            try queue.close()
        }
        // v2 drops pinnedIn: Note is rebuilt (SQLite cannot drop a foreign-key column in place).
        let v2 = try Fixture.model(
            EntityDescription("Folder", attributes: [Fixture.string("name")], relationships: [
                RelationshipDescription("notes", destination: "Note", inverse: "folder", isToMany: true)]),
            EntityDescription("Note", attributes: [Fixture.string("title")], relationships: [
                RelationshipDescription("folder", destination: "Folder", inverse: "notes")]))
        do {
            try await Fixture.open(url, v2)
            Issue.record("migrated a store with a dangling foreign key")
        } catch let error as StrataError {
            #expect(error.code == .migrationFailed)
            #expect(error.message.contains("row 1 of Note"), "\(error)")
        }
        #expect(FileManager.default.fileExists(atPath: StoreMigrator.backupPath(for: url.path)))
        #expect(try Fixture.columns(url, "Note") == ["_id", "_version", "title", "folder", "pinnedIn"])
        #expect(try Fixture.rows(url, "SELECT value FROM _strata_metadata WHERE key = 'modelHash'").first?["value"] == v1.versionHash)
        let backup = URL(fileURLWithPath: StoreMigrator.backupPath(for: url.path))
        #expect(try Fixture.rows(backup, "SELECT title FROM Note").first?["title"] == "a")
    }
}

import Foundation
import Testing
@testable import Strata

/// Migrations that add, change or remove the searchable flag build or drop the index, in the
/// migration's transaction, from the rows already stored.
@Suite struct SearchMigrationTests {
    func item(searchable: Set<String>, extra: [AttributeDescription] = [], bodyName: String = "body", bodyFormerName: String? = nil) -> EntityDescription {
        EntityDescription("Item", attributes: [
            AttributeDescription("name", type: .string, isSearchable: searchable.contains("name")),
            AttributeDescription(bodyName, type: .string, renamingIdentifier: bodyFormerName, isSearchable: searchable.contains(bodyName)),
        ] + extra)
    }

    let rows: [[String: PropertyValue]] = [
        ["name": .string("one"), "body": .string("apples and pears")],
        ["name": .string("two"), "body": .string("pears only")],
        ["name": .string("three"), "body": .string("plums")],
    ]

    /// The names matching `query` through a fetch on `model`.
    func search(_ url: URL, _ model: ObjectModel, _ query: String, in keys: [String] = []) async throws -> [String] {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        defer { try? coordinator.close() }
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        return try await context.perform {
            var request = FetchRequest<ManagedObject>(entityName: "Item", sortKeys: [SortKey("name")])
            request.textSearch = TextSearch(query, in: keys, ordersByRelevance: false)
            return try context.fetch(request).map { $0.value(forKey: "name") as? String ?? "" }
        }
    }

    func ftsObjects(_ url: URL) throws -> Set<String> {
        Set(try Fixture.rows(url, "SELECT name FROM sqlite_master WHERE name LIKE '\\_fts\\_%' ESCAPE '\\'").map { $0["name"] as String })
    }

    func lastChanges(_ url: URL) throws -> String {
        try Fixture.rows(url, "SELECT changes FROM _strata_migrations ORDER BY id DESC LIMIT 1").first?["changes"] ?? ""
    }

    @Test func addingSearchableBuildsTheIndexFromStoredRows() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item(searchable: [])), "Item", rows)
        #expect(try ftsObjects(url).isEmpty)
        let v2 = try Fixture.model(item(searchable: ["body"]))
        #expect(try await search(url, v2, "pears") == ["one", "two"])
        #expect(try lastChanges(url).contains("index Item for search (body)"))
        #expect(try ftsObjects(url).isSuperset(of: ["_fts_Item", "_fts_Item_insert", "_fts_Item_delete", "_fts_Item_update"]))
        // Later saves keep it current.
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: [["name": .string("four"), "body": .string("pears again")]]))
        try coordinator.close()
        #expect(try await search(url, v2, "pears") == ["four", "one", "two"])
    }

    @Test func removingSearchableDropsTheIndexAndTriggers() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item(searchable: ["body"])), "Item", rows)
        #expect(!(try ftsObjects(url)).isEmpty)
        let v2 = try Fixture.model(item(searchable: []))
        try await Fixture.open(url, v2)
        #expect(try ftsObjects(url).isEmpty)
        #expect(try lastChanges(url).contains("remove search index _fts_Item"))
        // Writes work without the index (no trigger left naming it).
        let coordinator = try await StoreCoordinator(model: v2, store: .sqlite(url))
        _ = try coordinator.execute(BatchUpdateRequest(entityName: "Item", propertiesToUpdate: ["body": .string("x")]))
        _ = try coordinator.execute(BatchDeleteRequest(entityName: "Item"))
        try coordinator.close()
    }

    @Test func changingTheSearchableSetRebuildsAndUnrelatedChangesKeepIt() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item(searchable: ["body"])), "Item", rows)
        #expect(try await search(url, try Fixture.model(item(searchable: ["body"])), "one").isEmpty)
        let both = try Fixture.model(item(searchable: ["body", "name"]))
        #expect(try await search(url, both, "one") == ["one"])
        #expect(try await search(url, both, "plums", in: ["body"]) == ["three"])
        // An added, unrelated attribute keeps the index as it is (no rebuild in the history).
        let rated = try Fixture.model(item(searchable: ["body", "name"], extra: [AttributeDescription("rating", type: .int64)]))
        #expect(try await search(url, rated, "pears") == ["one", "two"])
        #expect(!(try lastChanges(url)).contains("index Item"))
        #expect(try lastChanges(url).contains("add Item.rating"))
    }

    @Test func renamingASearchableAttributeRebuildsUnderTheNewName() async throws {
        let dir = TemporaryDirectory(), url = dir.file()
        try await Fixture.seed(url, try Fixture.model(item(searchable: ["body"])), "Item", rows)
        let renamed = try Fixture.model(item(searchable: ["text"], bodyName: "text", bodyFormerName: "body"))
        #expect(try await search(url, renamed, "plums", in: ["text"]) == ["three"])
        let sql: String = try #require(try Fixture.rows(url, "SELECT sql FROM sqlite_master WHERE name = '_fts_Item'").first)["sql"]
        #expect(sql.contains("\"text\"") && !sql.contains("\"body\""), "\(sql)")
    }
}

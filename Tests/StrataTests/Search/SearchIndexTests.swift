import Foundation
import GRDB
import Testing
@testable import Strata

/// The FTS5 index follows every write: saves, rollbacks, failed saves, batch requests.
@Suite struct SearchIndexTests {
    @Test func newStoreHasAnIndexOnlyForSearchableEntities() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, _) = try await SearchFixture.store(dir)
        let names = try await coordinator.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name LIKE '\\_fts\\_%' ESCAPE '\\' AND type IN ('trigger', 'table') AND sql NOT LIKE 'CREATE TABLE%'")
        }
        #expect(Set(names) == ["_fts_Memo", "_fts_Memo_insert", "_fts_Memo_delete", "_fts_Memo_update"])
        let sql = try await coordinator.database.read { db in try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = '_fts_Memo'") }
        #expect(sql?.contains("content='Memo', content_rowid='_id'") == true, "\(sql ?? "")")
        // The text is stored once: the index has no content table of its own.
        #expect(try await !coordinator.database.read { db in try db.tableExists("_fts_Memo_content") })
    }

    @Test func searchableNeedsAString() throws {
        let entity = EntityDescription("Bad", attributes: [AttributeDescription("n", type: .int64, isSearchable: true)])
        #expect { try ObjectModel(entities: [entity]) } throws: { ($0 as? StrataError)?.code == .invalidModel }
    }

    @Test func savesKeepTheIndexCurrent() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await SearchFixture.store(dir, [("Groceries", "milk and eggs", 1), ("Gym", "legs day", 2)])
        #expect(try SearchFixture.indexed(coordinator, "milk") == [1])
        try await context.perform {
            let memos = try context.fetch(Strata.FetchRequest<Memo>(sortKeys: [SortKey("title")]))
            memos[0].body = "bread and butter"            // Groceries: update of a searchable key
            memos[1].rank = 9                             // Gym: update of another key only
            let added = context.insert(Memo.self)
            added.title = "Garden"
            added.body = "plant the milk thistle"
            added.code = "new"
            try context.save()
        }
        #expect(try SearchFixture.indexed(coordinator, "milk") == [3])
        #expect(try SearchFixture.indexed(coordinator, "butter") == [1])
        #expect(try SearchFixture.indexed(coordinator, "legs") == [2])
        try SearchFixture.checkIndex(coordinator)
        try await context.perform {
            let gym = try context.fetch(Strata.FetchRequest<Memo>(predicate: .key("title") == "Gym"))
            context.delete(gym[0])
            try context.save()
        }
        #expect(try SearchFixture.indexed(coordinator, "legs").isEmpty)
        try SearchFixture.checkIndex(coordinator)
    }

    @Test func updatesOfOtherKeysDoNoIndexWork() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await SearchFixture.store(dir, [("a", "alpha", 1)])
        let before = try await coordinator.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _fts_Memo_data") ?? 0 }
        try await context.perform {
            let memo = try context.fetch(Strata.FetchRequest<Memo>())[0]
            memo.rank = 5
            try context.save()
        }
        let after = try await coordinator.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _fts_Memo_data") ?? 0 }
        #expect(after == before)   // a write to the index adds a segment block
        let plainTriggers = try await coordinator.database.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'Plain'") ?? -1
        }
        #expect(plainTriggers == 0)
    }

    @Test func rollbackAndFailedSaveLeaveTheIndexUntouched() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await SearchFixture.store(dir, [("a", "alpha", 1)])
        try await context.perform {
            let memo = context.insert(Memo.self)
            memo.body = "zebra"
            memo.code = "z"
            context.rollback()
        }
        #expect(try SearchFixture.indexed(coordinator, "zebra").isEmpty)
        let failure = try await context.perform { () -> StrataError? in
            let existing = try context.fetch(Strata.FetchRequest<Memo>())[0]
            existing.body = "yak"                         // an update written before the failing insert
            let memo = context.insert(Memo.self)
            memo.body = "zebra"
            memo.code = "c0"                              // collides with the stored memo's code
            do { try context.save(); return nil } catch let error as StrataError { return error }
        }
        #expect(failure?.code == .conflict)
        #expect(try SearchFixture.indexed(coordinator, "zebra").isEmpty)
        #expect(try SearchFixture.indexed(coordinator, "yak").isEmpty)
        #expect(try SearchFixture.indexed(coordinator, "alpha") == [1])
        try SearchFixture.checkIndex(coordinator)
    }

    @Test func batchRequestsKeepTheIndexCurrent() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, _) = try await SearchFixture.store(dir)
        let ids = try coordinator.execute(BatchInsertRequest(entityName: "Memo", objects: (0..<20).map {
            ["title": .string("t\($0)"), "body": .string($0 % 2 == 0 ? "even words" : "odd words"), "code": .string("b\($0)"), "rank": .integer(Int64($0))]
        }))
        #expect(ids.count == 20)
        #expect(try SearchFixture.indexed(coordinator, "even").count == 10)
        _ = try coordinator.execute(BatchUpdateRequest(entityName: "Memo", predicate: .key("rank") < 4, propertiesToUpdate: ["body": .string("changed")]))
        #expect(try SearchFixture.indexed(coordinator, "changed").count == 4)
        #expect(try SearchFixture.indexed(coordinator, "even").count == 8)
        _ = try coordinator.execute(BatchDeleteRequest(entityName: "Memo", predicate: .key("rank") >= 10))
        #expect(try SearchFixture.indexed(coordinator, "words").count == 6)
        try SearchFixture.checkIndex(coordinator)
    }
}

import Foundation
import GRDB
import Testing
@testable import Strata

/// A note with two searchable attributes, one plain key to filter and sort by, and a unique
/// key to make a save fail.
final class Memo: ManagedObject {
    @Attribute("title", .searchable) var title = ""
    @Attribute("body", .searchable) var body = ""
    @Attribute("rank") var rank: Int64 = 0
    @Attribute("code", .unique) var code = ""
    @Attribute("draft") var draft = false
}

/// An entity without searchable attributes: no index, no triggers.
final class Plain: ManagedObject {
    @Attribute("text") var text = ""
}

enum SearchFixture {
    static let model: ObjectModel = {
        do { return try ObjectModel(Memo.self, Plain.self) }
        catch { preconditionFailure("search model: \(error)") }  // programmer error: the model is valid
    }()

    /// A store with `Memo`s made from (title, body, rank) triples, saved once.
    static func store(_ dir: TemporaryDirectory, _ memos: [(String, String, Int64)] = []) async throws -> (StoreCoordinator, ObjectContext) {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for (i, (title, body, rank)) in memos.enumerated() {
                let memo = context.insert(Memo.self)
                memo.title = title
                memo.body = body
                memo.rank = rank
                memo.code = "c\(i)"
            }
            try context.save()
        }
        return (coordinator, context)
    }

    /// The primary keys the raw FTS index matches for `query`, sorted.
    static func indexed(_ coordinator: StoreCoordinator, _ query: String) throws -> [Int64] {
        try coordinator.database.read { db in
            try Int64.fetchAll(db, sql: "SELECT rowid FROM _fts_Memo WHERE _fts_Memo MATCH ? ORDER BY rowid", arguments: [query])
        }
    }

    /// Runs FTS5's integrity check against the content table: throws when the index and the
    /// rows disagree.
    static func checkIndex(_ coordinator: StoreCoordinator) throws {
        try coordinator.database.write { db in
            try db.execute(sql: "INSERT INTO _fts_Memo(_fts_Memo, rank) VALUES ('integrity-check', 1)")
        }
    }

    /// The titles a request fetches, in order.
    static func titles(_ context: ObjectContext, _ request: Strata.FetchRequest<Memo>) async throws -> [String] {
        try await context.perform { try context.fetch(request).map(\.title) }
    }
}

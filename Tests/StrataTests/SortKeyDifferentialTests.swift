import Foundation
import GRDB
import Testing
@testable import Strata

/// SQL `ORDER BY` and the in-memory comparator must put objects in exactly the same order.
@Suite struct SortKeyDifferentialTests {
    static let paths = ["title", "name", "count", "score", "flag", "created", "price", "uid", "blob", "group.name",
                        "group.parent.name", "detail.note", "group", "detail", "tags.@count", "group.rank", "group.items.@count"]

    @Test(arguments: SeededRandom.seeds([7, 99, 2026]))
    func sqlAndMemoryOrderAgree(seed: UInt64) throws {
        let store = try PredicateTestStore(model: try PredicateTestModel.make())
        var rng = SeededRandom(seed: seed)
        try PredicateFixtures.populate(store, using: &rng)
        let item = store.entity("Item")
        for n in 0..<300 {
            let keys = (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                SortKey(rng.pick(Self.paths), ascending: rng.chance(0.5), comparison: rng.pick(SortKey.Comparison.allCases))
            }
            let compiled = try keys.map { try $0.compiled(for: item, in: store.model) }
            let sql = "SELECT t0._id FROM \"Item\" t0 ORDER BY \(CompiledSortKey.orderBy(compiled, alias: "t0", model: store.model))"
            let sqlOrder = try store.queue.read { db in try Int64.fetchAll(db, sql: sql) }
            let memoryOrder = (store.objects["Item"] ?? []).sorted { CompiledSortKey.areInIncreasingOrder(compiled, $0, $1) }.map(\.key)
            #expect(sqlOrder == memoryOrder, "seed \(seed) #\(n): \(keys)\n  \(sql)")
            if sqlOrder != memoryOrder { break }
        }
    }

    @Test func rejectsBadKeyPaths() throws {
        let model = try PredicateTestModel.make()
        let item = try #require(model.entity(named: "Item"))
        for path in ["nope", "title.length", "tags", "tags.name", "group.nope", ""] {
            #expect(throws: StrataError.self, "\(path)") { _ = try SortKey(path).compiled(for: item, in: model) }
        }
        #expect(throws: Never.self) { _ = try SortKey("group.parent.name").compiled(for: item, in: model) }
    }

    @Test func orderingTermsUseSharedFunctions() throws {
        let model = try PredicateTestModel.make()
        let item = try #require(model.entity(named: "Item"))
        let keys = try [SortKey("title", comparison: .caseInsensitive), SortKey("name", ascending: false, comparison: .localized),
                        SortKey("group.name")].map { try $0.compiled(for: item, in: model) }
        let clause = CompiledSortKey.orderBy(keys, alias: "t0", model: model)
        #expect(clause == "strata_fold(t0.\"title\", 1) ASC, t0.\"name\" COLLATE strata_localized DESC, (SELECT t0_1.\"name\" FROM \"Group\" t0_1 WHERE t0_1._id = t0.\"group\") ASC, t0._id")
    }
}

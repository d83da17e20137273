import Foundation
import Testing
@testable import Strata

/// `SUBQUERY(…).@count` and the collection operators `@sum`, `@avg`, `@min`, `@max`: exact
/// values in SQL and memory, typed errors, and fetches that include unsaved changes.
@Suite struct PredicateSubqueryTests {
    /// Two groups: one with items scored 1, 2, nil and prices 0.5, 2.25; one with no items.
    /// Item 4 is the second group's only item and has no score; item 5 has no group; the
    /// third group has no items.
    private func smallStore() throws -> PredicateTestStore {
        let store = try PredicateTestStore(model: try PredicateTestModel.make())
        let full = store.insert("Group")
        let empty = store.insert("Group")
        for (score, price) in [(1.0, "0.5"), (2.0, "2.25"), (nil, nil)] as [(Double?, String?)] {
            let item = store.insert("Item")
            item[attribute: "score"] = score.map(PropertyValue.double) ?? .null
            item[attribute: "price"] = price.flatMap { Decimal(string: $0) }.map(PropertyValue.decimal) ?? .null
            item[attribute: "title"] = .string(score == nil ? "none" : "s\(Int(score!))")
            store.link(item, "group", to: full)
        }
        store.link(store.insert("Item"), "group", to: empty)   // item 4: its group's only item has no score
        _ = store.insert("Group")                                // a third group, no items at all
        _ = store.insert("Item")                                 // item 5, without a group
        try store.save()
        return store
    }

    /// The keys of items matching `format` by SQL, after checking memory agrees.
    private func keys(_ store: PredicateTestStore, _ format: String, _ arguments: Any?...) throws -> Set<Int64> {
        let compiled = try ObjectPredicate(format: format, arguments: arguments).compiled(for: store.entity("Item"), in: store.model)
        let sql = try store.sqlKeys(compiled, entity: "Item")
        #expect(sql == store.memoryKeys(compiled, entity: "Item"), "\(format): SQL and memory differ")
        return sql
    }

    @Test func collectionOperatorsComputeTheirValues() throws {
        let store = try smallStore()
        // Items 1-3 share a group with scores {1, 2, nil}: nil is skipped.
        #expect(try keys(store, "group.items.@sum.score == 3") == [1, 2, 3])
        #expect(try keys(store, "group.items.@avg.score == 1.5") == [1, 2, 3])
        #expect(try keys(store, "group.items.@min.score == 1") == [1, 2, 3])
        #expect(try keys(store, "group.items.@max.score == 2") == [1, 2, 3])
        #expect(try keys(store, "group.items.@sum.price == 2.75") == [1, 2, 3])
        #expect(try keys(store, "group.items.@max.price > 2.2") == [1, 2, 3])
        // Item 4's group has only a nil score: the sum is 0, the others are nil.
        #expect(try keys(store, "group.items.@sum.score == 0") == [4])
        #expect(try keys(store, "group.items.@avg.score == nil") == [4, 5])   // 5: no group, nil like group.rank
        #expect(try keys(store, "group.items.@max.score != nil") == [1, 2, 3])
        #expect(try keys(store, "group.items.@min.score < 100") == [1, 2, 3])
        #expect(try keys(store, "NOT (group.items.@min.score < 100)") == [4, 5])
        // Through a to-one after the operator.
        #expect(try keys(store, "group.items.@sum.group.rank == 0") == [1, 2, 3, 4])
    }

    @Test func collectionOperatorsOnAnEmptyCollection() throws {
        let store = try smallStore()
        let group = store.entity("Group")
        for (format, expected) in [("items.@sum.score == 0", [2, 3]), ("items.@avg.score == nil", [2, 3]),
                                   ("items.@min.score == nil", [2, 3]), ("items.@max.score >= 0", [1]),
                                   ("items.@count == 0", [3])] as [(String, [Int64])] {
            let compiled = try ObjectPredicate(format).compiled(for: group, in: store.model)
            let sql = try store.sqlKeys(compiled, entity: "Group")
            #expect(sql == Set(expected), "\(format)")
            #expect(store.memoryKeys(compiled, entity: "Group") == sql, "\(format)")
        }
    }

    @Test func subqueryCountsTheMatchingMembers() throws {
        let store = try smallStore()
        #expect(try keys(store, "SUBQUERY(group.items, $i, $i.score > 1).@count == 1") == [1, 2, 3])
        #expect(try keys(store, "SUBQUERY(group.items, $i, $i.score >= 1).@count == 2") == [1, 2, 3])
        #expect(try keys(store, "SUBQUERY(group.items, $i, $i.score == nil).@count > 0") == [1, 2, 3, 4])
        #expect(try keys(store, "0 == SUBQUERY(group.items, $i, $i.title BEGINSWITH 's').@count") == [4])
        #expect(try keys(store, "SUBQUERY(group.items, $i, $i == %@).@count == 1", ObjectID(entity: store.entity("Item"), key: 2)) == [1, 2, 3])
        // Nested, with a collection operator inside.
        #expect(try keys(store, "SUBQUERY(group.items, $i, SUBQUERY($i.group.items, $j, $j.score < 2).@count == 1 AND $i.group.items.@sum.score > 2).@count == 3") == [1, 2, 3])
        // Item 5 has no group: the count is nil, as for group.items.@count.
        #expect(try keys(store, "SUBQUERY(group.items, $i, TRUEPREDICATE).@count == nil") == [5])
        #expect(try keys(store, "SUBQUERY(group.items, $i, TRUEPREDICATE).@count < 5") == [1, 2, 3, 4])
    }

    @Test func printsAndParsesBack() throws {
        let formats = [
            "SUBQUERY(group.items, $i, $i.score > 1 AND ANY $i.tags.name == \"x\").@count > 0",
            "SUBQUERY(tags, $t, $t.name BEGINSWITH[c] \"a\" OR SUBQUERY($t.items, $u, $u.count == 1).@count == 0).@count == 2",
            "group.items.@avg.score >= 2.5",
        ]
        for format in formats {
            let text = try ObjectPredicate(format).description
            #expect(text == format)
            #expect(try ObjectPredicate(text).description == text)
        }
        #expect(try ObjectPredicate("3 > SUBQUERY(tags, $t, $t.name == 'x').@count").description == "SUBQUERY(tags, $t, $t.name == \"x\").@count < 3")
    }

    @Test func malformedSubqueriesAndOperatorsAreTypedErrors() throws {
        let model = try PredicateTestModel.make()
        let item = try #require(model.entity(named: "Item"))
        let parseErrors = [
            "SUBQUERY(tags, $t, $t.name == 'x') > 0",         // no .@count
            "SUBQUERY(tags, $t, $t.name == 'x').@sum > 0",
            "SUBQUERY(tags, t, t.name == 'x').@count > 0",     // not a variable
            "SUBQUERY(tags, $t.name, $t.name == 'x').@count > 0",
            "SUBQUERY(tags $t, $t.name == 'x').@count > 0",
            "SUBQUERY(tags, $t, $t.name == 'x'.@count > 0",
            "ANY SUBQUERY(tags, $t, $t.name == 'x').@count > 0",
            "SUBQUERY(tags, $t, $t.name == 'x').@count == title",
            "0 IN SUBQUERY(tags, $t, TRUEPREDICATE).@count",
            "$ == 1",
            "$1 == 1",
            "title == .@count",
        ]
        for format in parseErrors {
            do { _ = try ObjectPredicate(format); Issue.record("\(format) parsed") }
            catch { #expect(error.code == .malformedPredicate, "\(format)"); #expect(error.position != nil, "\(format)") }
        }
        do { _ = try ObjectPredicate(format: "%K == 1", arguments: ["a.$b"]); Issue.record("a.$b parsed") }
        catch { #expect(error.code == .malformedPredicate) }
        let compileErrors: [(String, String)] = [
            ("SUBQUERY(group, $g, $g.rank > 1).@count > 0", "to-one"),
            ("SUBQUERY(title, $g, $g.rank > 1).@count > 0", "relationship"),
            ("SUBQUERY(tags.items, $g, $g.count > 1).@count > 0", "to-many"),
            ("SUBQUERY(tags, $t, $u.name == 'x').@count > 0", "Unknown variable $u"),
            ("SUBQUERY(tags, $t, name == 'x').@count > 0", "must start with its variable"),
            ("SUBQUERY(tags, $t, SUBQUERY($t.items, $t, $t.count > 1).@count > 0).@count > 0", "already"),
            ("SUBQUERY(tags, $t, SUBQUERY($t.items, $i, $t.name == 'x').@count > 0).@count > 0", "enclosing"),
            ("SUBQUERY(tags, $t, $t.nope == 1).@count > 0", "no key"),
            ("SUBQUERY(tags, $t, $t.name == 'x').@count == 'a'", "cannot be compared"),
            ("SUBQUERY(tags, $t, $t.name == 'x').@count BEGINSWITH 'a'", "string"),
            ("$t.name == 'x'", "Unknown variable $t"),
            ("group.items.@sum.title > 1", "number attribute"),
            ("group.items.@avg.created > 1", "number attribute"),
            ("group.items.@sum == 1", "needs a key after"),
            ("group.items.@max.tags.name == 1", "to-one"),
            ("group.@sum.rank == 1", "must follow a to-many"),
            ("@min.count == 1", "must follow a to-many"),
            ("ANY group.items.@sum.score == 1", "cannot apply"),
            ("group.items.@sum.score BEGINSWITH 'a'", "string"),
            ("group.items.@median.score == 1", "must follow a to-many"),
        ]
        for (format, message) in compileErrors {
            do {
                _ = try ObjectPredicate(format).compiled(for: item, in: model)
                Issue.record("\(format) compiled")
            } catch {
                #expect(error.code == .malformedPredicate, "\(format)")
                #expect("\(error)".contains(message), "\(format): \(error)")
            }
        }
    }

    /// `depth` SUBQUERYs over `collection`, each inside the previous one's predicate, around `inner`.
    private static func nested(_ depth: Int, _ collection: String = "group.parent.items", inner: String = "TRUEPREDICATE") -> String {
        var format = inner.replacingOccurrences(of: "$X", with: "$v\(depth - 1)")
        for level in stride(from: depth - 1, through: 0, by: -1) {
            let path = level == 0 ? collection : "$v\(level - 1).\(collection)"
            format = "SUBQUERY(\(path), $v\(level), \(format)).@count >= 0"
        }
        return format
    }

    /// A SUBQUERY counts 8 levels of nesting: the deepest allowed ones run in SQLite (32
    /// nested SUBQUERYs, one level each, overflowed its parser stack).
    @Test func nestingIsBoundedAndTheDeepestAllowedRuns() throws {
        let store = try smallStore()
        let levels = PredicateParser.maximumNesting / PredicateParser.subqueryNestingCost
        let nots = PredicateParser.maximumNesting - (levels - 1) * PredicateParser.subqueryNestingCost
        let inner = String(repeating: "NOT (", count: nots) + "$X.score == nil" + String(repeating: ")", count: nots)
        // No group has a parent: these run (SQL and memory agree) and select nothing.
        for format in [Self.nested(levels), Self.nested(levels - 1, inner: inner)] {
            #expect(try keys(store, format) == [], "\(format)")
        }
        #expect(try keys(store, Self.nested(levels, "group.items")) == [1, 2, 3, 4])
        #expect(try keys(store, Self.nested(levels - 1, "group.items", inner: inner)) == [1, 2, 3, 4])
        for format in [Self.nested(levels + 1), Self.nested(levels - 1, inner: "NOT " + inner)] {
            do { _ = try ObjectPredicate(format); Issue.record("parsed \(format)") }
            catch { #expect(error.code == .malformedPredicate); #expect(error.message.contains("more than \(PredicateParser.maximumNesting) deep")) }
        }
    }

    static let engineFormats = [
        "SUBQUERY(folder.notes, $n, $n.rating > 2).@count >= 3",
        "SUBQUERY(tags, $t, $t.label BEGINSWITH 'r').@count > 0",
        "SUBQUERY(folder.notes, $n, SUBQUERY($n.tags, $t, $t.label == 'blue').@count == 1 AND $n.title BEGINSWITH 'n').@count > 3",
        "folder.notes.@sum.rating > 20",
        "folder.notes.@avg.rating >= 2",
        "folder.notes.@max.rating == 4",
        "folder.notes.@min.rating == 0",
        "folder.notes.@avg.rating == nil",
    ]

    /// Fetches with unsaved edits (ratings, tag labels, deletions, an insert) agree with the
    /// in-memory evaluation of every registered object.
    @Test(arguments: [false, true])
    func fetchesIncludePendingChanges(pendingChanges: Bool) async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let folders = ["A", "B", "C", "D"].map { n -> Folder in let f = context.insert(Folder.self); f.name = n; return f }
            let tags = ["red", "blue"].map { l -> Tag in let t = context.insert(Tag.self); t.label = l; return t }
            for i in 0..<40 {
                let note = context.insert(Note.self)
                note.title = "n\(i)"
                note.rating = Int16(i % 5)
                note.folder = i % 7 == 0 ? nil : folders[i % 3]
                note.tags = Set(tags.enumerated().filter { (k, _) in (i >> k) & 1 == 1 }.map(\.1))
            }
            try context.save()
            var before: [String: Set<ObjectID>] = [:]
            for format in Self.engineFormats {
                before[format] = Set(try context.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format))).map(\.objectID))
            }
            if pendingChanges {
                let all = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
                for note in all where note.rating == 1 { note.rating = 4 }
                for note in all.prefix(4) { context.delete(note) }
                tags[1].label = "rouge"
                let extra = context.insert(Note.self); extra.title = "n99"; extra.folder = folders[3]; extra.rating = 3; extra.tags = [tags[0]]
            }
            let everything = try context.fetch(FetchRequest<Note>())
            var changed = 0
            for format in Self.engineFormats {
                let predicate = try ObjectPredicate(format)
                let fetched = Set(try context.fetch(FetchRequest<Note>(predicate: predicate)).map(\.objectID))
                let plan = try FetchPlan(FetchRequest<Note>(predicate: predicate), entity: try #require(testModel.entity(named: "Note")), model: testModel)
                let evaluated = Set(everything.filter { plan.matches($0) }.map(\.objectID))
                #expect(fetched == evaluated, "\(format) pending=\(pendingChanges)")
                #expect(try context.count(for: FetchRequest<Note>(predicate: predicate)) == evaluated.count, "\(format)")
                if fetched != before[format] { changed += 1 }
            }
            // The unsaved edits must move objects in and out, or agreement proves little.
            if pendingChanges { #expect(changed >= 5, "only \(changed) results changed") }
        }
    }
}

import Foundation
import Testing
@testable import Strata

/// Aggregate, grouped and distinct dictionary fetches on a real SQLite file, each checked
/// against a value the test computes from the data it inserted (random, seeded).
@Suite struct AggregateFetchTests {
    /// What the test inserted, as plain values, to compute the expected answers from.
    struct Row {
        var title: String
        var rating: Int64
        var subtitle: String?
        var created: Date
        var folder: ObjectID?
    }

    /// A store with `count` random notes in four folders (some in none), saved.
    func seeded(_ seed: UInt64, count: Int = 150) async throws -> (TemporaryDirectory, StoreCoordinator, ObjectContext, [Row]) {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let rows = try await context.perform { () -> [Row] in
            var random = SeededRandom(seed: seed)
            let folders = ["A", "B", "C", "D"].map { name -> Folder in let f = context.insert(Folder.self); f.name = name; return f }
            var notes: [Note] = []
            for i in 0..<count {
                let note = context.insert(Note.self)
                note.title = "t\(Int.random(in: 0..<40, using: &random))-\(i % 3)"
                note.rating = Int16.random(in: -3...9, using: &random)
                note.subtitle = random.chance(0.3) ? nil : random.pick(["x", "y", "z"])
                note.created = Date(timeIntervalSince1970: Double(Int.random(in: 0..<2_000_000_000, using: &random)))
                note.folder = random.chance(0.2) ? nil : random.pick(folders)
                notes.append(note)
            }
            try context.save()
            return notes.map { Row(title: $0.title, rating: Int64($0.rating), subtitle: $0.subtitle, created: $0.created, folder: $0.folder?.objectID) }
        }
        return (dir, coordinator, context, rows)
    }

    static func number(_ value: PropertyValue?) -> Double? { value?.numericValue }

    @Test(arguments: SeededRandom.seeds([1, 7, 42]))
    func eachAggregateMatchesTheData(seed: UInt64) async throws {
        let (dir, _, context, rows) = try await seeded(seed)
        _ = dir
        for threshold in [Int64(-10), 2, 6, 100] {   // 100: no row passes
            let passing = rows.filter { $0.rating >= threshold }
            var request = FetchRequest<Note>(predicate: try ObjectPredicate("rating >= %d", Int(threshold)))
            request.expressionsToFetch = [
                .count(nil, as: "rows"), .count("subtitle", as: "subtitles"), .count("folder", as: "filed"),
                .sum("rating", as: "total"), .average("rating", as: "mean"),
                .min("rating", as: "lowest"), .max("rating", as: "highest"),
                .min("created", as: "first"), .max("title", as: "lastTitle"),
            ]
            let result = try await context.perform { try context.fetchDictionaries(request) }
            #expect(result.count == 1, "seed \(seed)")
            let row = try #require(result.first)
            #expect(row["rows"] == .integer(Int64(passing.count)), "seed \(seed)")
            #expect(row["subtitles"] == .integer(Int64(passing.count { $0.subtitle != nil })), "seed \(seed)")
            #expect(row["filed"] == .integer(Int64(passing.count { $0.folder != nil })), "seed \(seed)")
            #expect(row["total"] == .integer(passing.reduce(0) { $0 + $1.rating }), "seed \(seed)")
            #expect(row["lowest"] == (passing.map(\.rating).min().map(PropertyValue.integer) ?? .null), "seed \(seed)")
            #expect(row["highest"] == (passing.map(\.rating).max().map(PropertyValue.integer) ?? .null), "seed \(seed)")
            #expect(row["first"] == (passing.map(\.created).min().map(PropertyValue.date) ?? .null), "seed \(seed)")
            let lastTitle = passing.map(\.title).max { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            #expect(row["lastTitle"] == (lastTitle.map(PropertyValue.string) ?? .null), "seed \(seed)")
            if passing.isEmpty {
                #expect(row["mean"] == .null)
            } else {
                let mean = Double(passing.reduce(0) { $0 + $1.rating }) / Double(passing.count)
                #expect(abs((Self.number(row["mean"]) ?? .nan) - mean) < 1e-9, "seed \(seed)")
            }
        }
    }

    @Test(arguments: SeededRandom.seeds([3, 11]))
    func groupByHavingAndSortMatchTheData(seed: UInt64) async throws {
        let (dir, _, context, rows) = try await seeded(seed, count: 200)
        _ = dir
        var request = FetchRequest<Note>(predicate: try ObjectPredicate("rating > 0"),
                                         sortKeys: [SortKey("total", ascending: false)])
        request.propertiesToGroupBy = ["folder"]
        request.expressionsToFetch = [.count(nil, as: "n"), .sum("rating", as: "total"), .max("created", as: "latest")]
        request.havingPredicate = try ObjectPredicate("n >= %d AND folder != nil", 20)
        let result = try await context.perform { try context.fetchDictionaries(request) }

        let passing = rows.filter { $0.rating > 0 && $0.folder != nil }
        let groups = Dictionary(grouping: passing) { $0.folder! }
        struct Group { var folder: ObjectID; var n: Int; var total: Int64; var latest: Date }
        var expected: [Group] = []
        for (folder, members) in groups where members.count >= 20 {
            let total = members.reduce(Int64(0)) { $0 + $1.rating }
            expected.append(Group(folder: folder, n: members.count, total: total, latest: members.map(\.created).max()!))
        }
        expected.sort { $0.total != $1.total ? $0.total > $1.total : $0.folder.key < $1.folder.key }
        #expect(!expected.isEmpty, "seed \(seed): the having predicate should keep some groups")
        #expect(expected.count < groups.count || groups.values.allSatisfy { $0.count >= 20 })
        #expect(result.map { Set($0.keys) } == Array(repeating: ["folder", "n", "total", "latest"], count: result.count))
        let folders: [PropertyValue?] = expected.map { PropertyValue.objectID($0.folder) }
        let ns: [PropertyValue?] = expected.map { PropertyValue.integer(Int64($0.n)) }
        let totals: [PropertyValue?] = expected.map { PropertyValue.integer($0.total) }
        let latests: [PropertyValue?] = expected.map { PropertyValue.date($0.latest) }
        #expect(result.map { $0["folder"] } == folders, "seed \(seed)")
        #expect(result.map { $0["n"] } == ns, "seed \(seed)")
        #expect(result.map { $0["total"] } == totals, "seed \(seed)")
        #expect(result.map { $0["latest"] } == latests, "seed \(seed)")

        // Two keys, ascending by one of them then by a result; limit and offset on groups.
        var twoKeys = FetchRequest<Note>(sortKeys: [SortKey("subtitle"), SortKey("n", ascending: false)])
        twoKeys.propertiesToGroupBy = ["subtitle", "folder"]
        twoKeys.expressionsToFetch = [.count(nil, as: "n")]
        let all = try await context.perform { [twoKeys] in try context.fetchDictionaries(twoKeys) }
        let pairs = Dictionary(grouping: rows) { [$0.subtitle.map(PropertyValue.string) ?? .null, $0.folder.map(PropertyValue.objectID) ?? .null] }
        #expect(all.count == pairs.count, "seed \(seed)")
        for row in all {
            #expect(row["n"] == .integer(Int64(pairs[[row["subtitle"]!, row["folder"]!]]?.count ?? -1)), "seed \(seed)")
        }
        let subtitles = all.map { $0["subtitle"]! }
        #expect(subtitles == subtitles.sorted { CompiledSortKeyOrder.less($0, $1) }, "nil first, then by text")
        twoKeys.fetchOffset = 2
        twoKeys.fetchLimit = 3
        let window = try await context.perform { [twoKeys] in try context.fetchDictionaries(twoKeys) }
        #expect(window == Array(all.dropFirst(2).prefix(3)))
    }

    @Test func distinctResultsLeaveOutRepeats() async throws {
        let (dir, _, context, rows) = try await seeded(5)
        _ = dir
        var request = FetchRequest<Note>(sortKeys: [SortKey("rating", ascending: false)])
        request.propertiesToFetch = ["rating"]
        request.returnsDistinctResults = true
        let ratings = try await context.perform { try context.fetchDictionaries(request) }
        #expect(ratings.map { $0["rating"] } == Set(rows.map(\.rating)).sorted(by: >).map { .integer($0) })

        var pairs = FetchRequest<Note>(predicate: try ObjectPredicate("subtitle != nil"))
        pairs.propertiesToFetch = ["subtitle", "folder"]
        pairs.returnsDistinctResults = true
        let distinctPairs = try await context.perform { [pairs] in try context.fetchDictionaries(pairs) }
        let expected = Set(rows.filter { $0.subtitle != nil }.map { "\($0.subtitle!)|\($0.folder.map { String($0.key) } ?? "-")" })
        #expect(distinctPairs.count == expected.count)
        let got = distinctPairs.map { row -> String in
            guard case .string(let s)? = row["subtitle"] else { return "?" }
            if case .objectID(let id)? = row["folder"] { return "\(s)|\(id.key)" }
            return "\(s)|-"
        }
        #expect(Set(got) == expected)

        pairs.returnsDistinctResults = false   // the same request without distinct repeats rows
        let repeated = try await context.perform { [pairs] in try context.fetchDictionaries(pairs) }
        #expect(repeated.count == rows.count { $0.subtitle != nil })
    }

    @Test func nilValuesAreLeftOutAsInSQL() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            for subtitle in ["b", nil, "a", nil, nil] {
                let note = context.insert(Note.self)
                note.subtitle = subtitle
            }
            try context.save()
            var request = FetchRequest<Note>()
            request.expressionsToFetch = [.count("subtitle", as: "n"), .count(nil, as: "all"), .min("subtitle", as: "first"), .count("folder", as: "filed")]
            let row = try context.fetchDictionaries(request)
            #expect(row == [["n": .integer(2), "all": .integer(5), "first": .string("a"), "filed": .integer(0)]])

            var grouped = FetchRequest<Note>(sortKeys: [SortKey("subtitle")])
            grouped.propertiesToGroupBy = ["subtitle"]
            grouped.expressionsToFetch = [.count(nil, as: "n"), .count("subtitle", as: "nonNil")]
            let groups = try context.fetchDictionaries(grouped)
            #expect(groups == [["subtitle": .null, "n": .integer(3), "nonNil": .integer(0)],
                               ["subtitle": .string("a"), "n": .integer(1), "nonNil": .integer(1)],
                               ["subtitle": .string("b"), "n": .integer(1), "nonNil": .integer(1)]])

            var none = FetchRequest<Note>(predicate: .falsePredicate)
            none.expressionsToFetch = [.sum("rating", as: "s"), .average("rating", as: "a"), .max("rating", as: "m"), .count(nil, as: "c")]
            #expect(try context.fetchDictionaries(none) == [["s": .integer(0), "a": .null, "m": .null, "c": .integer(0)]])
        }
    }

    @Test func resultTypesConvertTheValue() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            for rating in [1, 2, 2] {
                let note = context.insert(Note.self)
                note.rating = Int16(rating)
            }
            try context.save()
            var request = FetchRequest<Note>()
            request.expressionsToFetch = [
                .sum("rating", as: "s", resultType: .double), .average("rating", as: "a", resultType: .int64),
                .count(nil, as: "c", resultType: .double), .average("rating", as: "d", resultType: .decimal),
                .average("rating", as: "plain"),
            ]
            let row = try #require(try context.fetchDictionaries(request).first)
            #expect(row["s"] == .double(5))
            #expect(row["a"] == .integer(1))            // 5/3 truncated, as a cast to an integer does
            #expect(row["c"] == .double(3))
            guard case .decimal(let d)? = row["d"] else { Issue.record("average as decimal: \(String(describing: row["d"]))"); return }
            #expect(abs(NSDecimalNumber(decimal: d).doubleValue - 5.0 / 3.0) < 1e-12)
            #expect(row["plain"] == .double(5.0 / 3.0))
        }
    }

    @Test func invalidCombinationsAreTypedErrors() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        func request(_ change: (inout FetchRequest<Note>) throws -> Void) rethrows -> FetchRequest<Note> {
            var request = FetchRequest<Note>()
            try change(&request)
            return request
        }
        let cases: [(String, FetchRequest<Note>, StrataError.Code, String?)] = try [
            ("grouped key not fetched", request { $0.propertiesToGroupBy = ["folder"]; $0.propertiesToFetch = ["rating"] }, .invalidRequest, "folder"),
            ("fetched key not grouped", request { $0.propertiesToGroupBy = ["folder"]; $0.propertiesToFetch = ["folder", "rating"] }, .invalidRequest, "rating"),
            ("property beside an expression without grouping", request { $0.propertiesToFetch = ["title"]; $0.expressionsToFetch = [.count(nil, as: "n")] }, .invalidRequest, "title"),
            ("sum of a string", request { $0.expressionsToFetch = [.sum("title", as: "s")] }, .invalidRequest, "title"),
            ("average of a date", request { $0.expressionsToFetch = [.average("created", as: "a")] }, .invalidRequest, "created"),
            ("count of a to-many", request { $0.expressionsToFetch = [.count("tags", as: "n")] }, .invalidRequest, "tags"),
            ("group by a to-many", request { $0.propertiesToGroupBy = ["tags"] }, .invalidRequest, "tags"),
            ("group by a transformable", request { $0.propertiesToGroupBy = ["metadata"] }, .invalidRequest, "metadata"),
            ("max of a transformable", request { $0.expressionsToFetch = [.max("metadata", as: "m")] }, .invalidRequest, "metadata"),
            ("unknown key", request { $0.expressionsToFetch = [.min("nope", as: "m")] }, .invalidRequest, "nope"),
            ("sum without a key", request { $0.expressionsToFetch = [ExpressionDescription(name: "s", function: .sum, keyPath: nil)] }, .invalidRequest, "s"),
            ("a name used twice", request { $0.propertiesToGroupBy = ["rating"]; $0.expressionsToFetch = [.count(nil, as: "rating")] }, .invalidRequest, "rating"),
            ("an unnamed expression", request { $0.expressionsToFetch = [.count(nil, as: "")] }, .invalidRequest, nil),
            ("a string result for a count", request { $0.expressionsToFetch = [.count(nil, as: "n", resultType: .string)] }, .invalidRequest, "n"),
            ("having without grouping", request { $0.expressionsToFetch = [.count(nil, as: "n")]; $0.havingPredicate = try ObjectPredicate("n > 1") }, .invalidRequest, nil),
            ("having on a key not in the result", request { $0.propertiesToGroupBy = ["folder"]; $0.havingPredicate = try ObjectPredicate("rating > 1") }, .malformedPredicate, "rating"),
            ("a name SQL would misread", request { $0.expressionsToFetch = [.count(nil, as: "n\" FROM x --")] }, .invalidRequest, "n\" FROM x --"),
            ("sort through a key not in the result", request { $0.propertiesToGroupBy = ["rating"]; $0.sortKeys = [SortKey("folder.name")] }, .invalidRequest, "folder.name"),
            ("sort by a key not in the result", request { $0.propertiesToGroupBy = ["folder"]; $0.sortKeys = [SortKey("title")] }, .invalidRequest, "title"),
            ("group by a key path through a to-many", request { $0.propertiesToGroupBy = ["tags.label"] }, .invalidRequest, "tags.label"),
            ("group by a key path ending in a to-many", request { $0.propertiesToGroupBy = ["folder.notes"] }, .invalidRequest, "folder.notes"),
            ("fetch a key path through a to-many", request { $0.propertiesToFetch = ["folder.notes.title"] }, .invalidRequest, "folder.notes.title"),
            ("fetch a key path to an unknown key", request { $0.propertiesToFetch = ["folder.nope"] }, .invalidRequest, "folder.nope"),
            ("fetch a key path through an attribute", request { $0.propertiesToFetch = ["title.count"] }, .invalidRequest, "title.count"),
            ("group by a key path to a transformable", request { $0.propertiesToGroupBy = ["folder.name", "tags"] }, .invalidRequest, "tags"),
        ]
        try await context.perform {
            for (name, request, code, key) in cases {
                do {
                    _ = try context.fetchDictionaries(request)
                    Issue.record("\(name): no error")
                } catch let error as StrataError {
                    #expect(error.code == code, "\(name): \(error)")
                    if let key { #expect(error.key == key, "\(name): \(error)") }
                } catch {
                    Issue.record("\(name): \(error)")
                }
            }
        }
    }

    @Test func groupsSortAndFilterThroughAGroupedToOne() async throws {
        let (dir, _, context, rows) = try await seeded(21, count: 120)
        _ = dir
        let names = try await context.perform { () -> [ObjectID: String] in
            Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest<Folder>()).map { ($0.objectID, $0.name) })
        }
        var request = FetchRequest<Note>(sortKeys: [SortKey("folder.name", ascending: false)])
        request.propertiesToGroupBy = ["folder"]
        request.expressionsToFetch = [.count(nil, as: "n")]
        request.havingPredicate = try ObjectPredicate("folder != nil AND folder.name != %@", "B")
        let result = try await context.perform { [request] in try context.fetchDictionaries(request) }
        let expected = Dictionary(grouping: rows.filter { $0.folder != nil && names[$0.folder!] != "B" }) { names[$0.folder!]! }
            .sorted { $0.key > $1.key }.map { [$0.key, String($0.value.count)] }
        let got = result.map { row -> [String] in
            guard case .objectID(let id)? = row["folder"], case .integer(let n)? = row["n"] else { return ["?"] }
            return [names[id] ?? "?", String(n)]
        }
        #expect(got == expected)
    }

    /// Gives folders A and B the owner "Ann", C the owner "Bob"; D has none.
    func assignOwners(_ context: ObjectContext) async throws -> [ObjectID: (folder: String, owner: String?)] {
        try await context.perform {
            let ann = context.insert(Person.self), bob = context.insert(Person.self)
            ann.name = "Ann"
            bob.name = "Bob"
            var result: [ObjectID: (folder: String, owner: String?)] = [:]
            for folder in try context.fetch(FetchRequest<Folder>()) {
                folder.owner = ["A": ann, "B": ann, "C": bob][folder.name]
                result[folder.objectID] = (folder.name, folder.owner?.name)
            }
            try context.save()
            return result
        }
    }

    @Test func groupsByKeyPathsThroughToOnes() async throws {
        let (dir, coordinator, context, rows) = try await seeded(31, count: 140)
        _ = dir
        let folders = try await assignOwners(context)
        var request = FetchRequest<Note>(sortKeys: [SortKey("folder.owner.name"), SortKey("folder.name", ascending: false)])
        request.propertiesToGroupBy = ["folder.owner.name", "folder.name"]
        request.expressionsToFetch = [.count(nil, as: "n"), .max("rating", as: "top")]
        request.havingPredicate = try ObjectPredicate("n > 0 AND folder.name != %@", "B")
        let grouped = request
        let (result, sql) = try await coordinator.recordingSQL {
            try await context.perform { try context.fetchDictionaries(grouped) }
        }
        #expect(sql.count == 1 && sql.first?.contains("GROUP BY") == true, "\(sql)")
        // Expected: notes grouped by (owner, folder); "B" filtered out; nil folders (and so
        // owners) form the group of two nils, which `!= "B"` keeps (NOT of a false `==`).
        var groups: [[String?]: [Row]] = [:]
        for row in rows {
            let folder = row.folder.flatMap { folders[$0] }
            groups[[folder?.owner, folder?.folder], default: []].append(row)
        }
        let expected = groups.filter { $0.key[1] != "B" }
            .sorted { ($0.key[0] ?? "", $1.key[1] ?? "") < ($1.key[0] ?? "", $0.key[1] ?? "") }
            .map { [$0.key[0] ?? "nil", $0.key[1] ?? "nil", String($0.value.count), String($0.value.map(\.rating).max() ?? 0)] }
        let got = result.map { row -> [String] in
            func text(_ value: PropertyValue?) -> String { if case .string(let s)? = value { s } else { value == .null ? "nil" : "?" } }
            return [text(row["folder.owner.name"]), text(row["folder.name"]), String(Int(Self.number(row["n"]) ?? -1)), String(Int(Self.number(row["top"]) ?? -1))]
        }
        #expect(got == expected)
        #expect(result.allSatisfy { Set($0.keys) == ["folder.owner.name", "folder.name", "n", "top"] })
    }

    @Test func fetchesKeyPathsThroughToOnesWithAndWithoutGrouping() async throws {
        let (dir, _, context, rows) = try await seeded(5, count: 60)
        _ = dir
        let folders = try await assignOwners(context)
        let owners = try await context.perform { () -> [String: ObjectID] in
            Dictionary(uniqueKeysWithValues: try context.fetch(FetchRequest<Person>()).map { ($0.name, $0.objectID) })
        }
        // Plain: every note, the key path's value under its key path (nil through a nil to-one).
        var plain = FetchRequest<Note>(sortKeys: [SortKey("title"), SortKey("rating")])
        plain.propertiesToFetch = ["title", "rating", "folder.name", "folder.owner.name", "folder.owner"]
        let values = try await context.perform { [plain] in try context.fetchDictionaries(plain) }
        #expect(values.count == rows.count)
        for value in values {
            guard case .string(let title)? = value["title"], case .integer(let rating)? = value["rating"] else { Issue.record("\(value)"); continue }
            let candidates = rows.filter { $0.title == title && $0.rating == rating }
            let expected = Set(candidates.map { row -> [PropertyValue] in
                let folder = row.folder.flatMap { folders[$0] }
                return [folder.map { .string($0.folder) } ?? .null, folder?.owner.map { .string($0) } ?? .null,
                        folder?.owner.flatMap { owners[$0] }.map(PropertyValue.objectID) ?? .null]
            })
            #expect(expected.contains([value["folder.name"] ?? .null, value["folder.owner.name"] ?? .null, value["folder.owner"] ?? .null]), "\(value)")
        }
        // Distinct: one row per owner name, nil included.
        var distinct = FetchRequest<Note>(sortKeys: [SortKey("folder.owner.name")])
        distinct.propertiesToFetch = ["folder.owner.name"]
        distinct.returnsDistinctResults = true
        let names = try await context.perform { [distinct] in try context.fetchDictionaries(distinct) }.map { $0["folder.owner.name"] ?? .integer(-1) }
        let expectedNames = Set(rows.map { row -> PropertyValue in row.folder.flatMap { folders[$0]?.owner }.map(PropertyValue.string) ?? .null })
        #expect(names == expectedNames.sorted { CompiledSortKeyOrder.less($0, $1) })
        // Grouping by a key path ending in a to-one gives object IDs; the having predicate and
        // the sort keys go on through it.
        var byOwner = FetchRequest<Note>(sortKeys: [SortKey("folder.owner.name", ascending: false)])
        byOwner.propertiesToGroupBy = ["folder.owner"]
        byOwner.expressionsToFetch = [.count(nil, as: "n")]
        byOwner.havingPredicate = try ObjectPredicate("folder.owner.name BEGINSWITH %@", "A")
        let owned = try await context.perform { [byOwner] in try context.fetchDictionaries(byOwner) }
        let annCount = rows.count { row in row.folder.flatMap { folders[$0]?.owner } == "Ann" }
        #expect(owned.count == 1)
        #expect(owned.first?["folder.owner"] == owners["Ann"].map(PropertyValue.objectID))
        #expect(owned.first?["n"] == .integer(Int64(annCount)))
    }

    @Test func oneStatementAndPendingChangesIgnored() async throws {
        let (dir, coordinator, context, rows) = try await seeded(9, count: 30)
        _ = dir
        var request = FetchRequest<Note>(sortKeys: [SortKey("folder")])
        request.propertiesToGroupBy = ["folder"]
        request.expressionsToFetch = [.count(nil, as: "n")]
        request.havingPredicate = try ObjectPredicate("n > 0")
        let grouped = request
        let (counts, sql) = try await coordinator.recordingSQL {
            try await context.perform { try context.fetchDictionaries(grouped) }
        }
        #expect(sql.count == 1)
        #expect(sql.first?.contains("GROUP BY") == true)
        #expect(counts.reduce(0) { $0 + (Int(Self.number($1["n"]) ?? 0)) } == rows.count)
        try await context.perform {
            let unsaved = context.insert(Note.self)
            unsaved.rating = 100
            var total = FetchRequest<Note>()
            total.expressionsToFetch = [.count(nil, as: "n"), .max("rating", as: "m")]
            #expect(try context.count(for: FetchRequest<Note>()) == rows.count + 1)   // count includes it
            let row = try context.fetchDictionaries(total)
            #expect(row.first?["n"] == .integer(Int64(rows.count)))                   // dictionaries read the store only
            #expect(row.first?["m"] == rows.map(\.rating).max().map(PropertyValue.integer))
        }
    }
}

/// The order of sort keys on one value: nil first, then strings by their UTF-8 bytes.
enum CompiledSortKeyOrder {
    static func less(_ a: PropertyValue, _ b: PropertyValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return false
        case (.null, _): return true
        case (_, .null): return false
        case (.string(let x), .string(let y)): return x.utf8.lexicographicallyPrecedes(y.utf8)
        default: return false
        }
    }
}

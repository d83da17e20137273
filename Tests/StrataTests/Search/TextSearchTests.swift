import Foundation
import Testing
@testable import Strata

/// Text searches from fetch requests: prefixes, phrases, ranking, snippets, predicates, sort
/// keys and limits, malformed queries, what unsaved changes do.
@Suite struct TextSearchTests {
    static let memos: [(String, String, Int64)] = [
        ("Concurrency", "strict concurrency checking in Swift six", 1),          // 1
        ("Actors", "actors isolate state; concurrency without locks", 2),         // 2
        ("Café", "a crème brûlée at the café", 3),                                // 3
        ("Locks", "locks and semaphores, the old way of concurrency", 4),         // 4
        ("Groceries", "milk eggs bread", 5),                                      // 5
        ("Conc", "concurrency concurrency concurrency", 6),                       // 6
    ]

    func request(_ search: TextSearch?, predicate: ObjectPredicate? = nil, sortKeys: [SortKey] = []) -> FetchRequest<Memo> {
        var request = FetchRequest<Memo>(predicate: predicate, sortKeys: sortKeys)
        request.textSearch = search
        return request
    }

    @Test func prefixAndPhraseAndFolding() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        let sorted = [SortKey("rank")]
        #expect(try await SearchFixture.titles(context, request(TextSearch("conc*", ordersByRelevance: false), sortKeys: sorted))
                == ["Concurrency", "Actors", "Locks", "Conc"])
        #expect(try await SearchFixture.titles(context, request(TextSearch("\"strict concurrency\""))) == ["Concurrency"])
        #expect(try await SearchFixture.titles(context, request(.phrase("concurrency strict"))).isEmpty)
        // Case and diacritics fold, as [cd] does.
        #expect(try await SearchFixture.titles(context, request(.words("CAFE"))) == ["Café"])
        #expect(try await SearchFixture.titles(context, request(.words("creme brul"))) == ["Café"])
        // Only the title: "conc*" in titles.
        #expect(try await SearchFixture.titles(context, request(TextSearch("conc*", in: ["title"], ordersByRelevance: false), sortKeys: sorted))
                == ["Concurrency", "Conc"])
    }

    @Test func relevanceOrdersFirstAndSortKeysBreakTies() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        // "Conc" says concurrency three times in a short text: most relevant.
        let ranked = try await SearchFixture.titles(context, request(.words("concurrency", lastWordIsPrefix: false)))
        #expect(ranked.first == "Conc")
        #expect(Set(ranked) == ["Concurrency", "Actors", "Locks", "Conc"])
        // Without relevance the sort keys give the order.
        let byRank = try await SearchFixture.titles(context, request(TextSearch("concurrency", ordersByRelevance: false), sortKeys: [SortKey("rank", ascending: false)]))
        #expect(byRank == ["Conc", "Locks", "Actors", "Concurrency"])
    }

    @Test func combinedWithPredicateLimitOffsetAndCount() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        var r = request(TextSearch("concurrency", ordersByRelevance: false), predicate: try ObjectPredicate("rank >= 2 AND rank <= 5"), sortKeys: [SortKey("rank")])
        #expect(try await SearchFixture.titles(context, r) == ["Actors", "Locks"])
        r.fetchLimit = 1
        r.fetchOffset = 1
        #expect(try await SearchFixture.titles(context, r) == ["Locks"])
        let counts = try await context.perform { () -> (Int, Int) in
            var all = r
            all.fetchLimit = 0
            all.fetchOffset = 0
            return (try context.count(for: all), try context.fetchObjectIDs(all).count)
        }
        #expect(counts.0 == 2 && counts.1 == 2)
        // Batched faults and dictionary fetches take the search too.
        let more = try await context.perform { () -> (Int, [String]) in
            var batched = request(.words("concurrency"), sortKeys: [SortKey("rank")])
            batched.fetchBatchSize = 2
            var dictionaries = request(TextSearch("milk"))
            dictionaries.propertiesToFetch = ["title"]
            return (try context.fetch(batched).count, try context.fetchDictionaries(dictionaries).compactMap { row -> String? in
                if case .string(let title)? = row["title"] { return title } else { return nil }
            })
        }
        #expect(more.0 == 4)
        #expect(more.1 == ["Groceries"])
    }

    @Test func unrankedWithoutSortKeysStreamsInKeyOrder() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await SearchFixture.store(dir, Self.memos)
        var r = request(TextSearch("concurrency", ordersByRelevance: false))
        r.fetchLimit = 2
        let (titles, sql) = try await coordinator.recordingSQL { try await SearchFixture.titles(context, r) }
        #expect(titles == ["Concurrency", "Actors"])
        #expect(sql.contains { $0.contains("ORDER BY \"_fts_Memo\".rowid LIMIT") }, "\(sql)")
        r.fetchOffset = 1
        #expect(try await SearchFixture.titles(context, r) == ["Actors", "Locks"])
        // With an unsaved change of the entity the window still comes from the store.
        let shifted = try await context.perform { () -> [String] in
            context.insert(Memo.self).body = "concurrency first"
            return try context.fetch(r).map(\.title)
        }
        #expect(shifted == ["Actors", "Locks"])
    }

    @Test func snippetsAndRelevance() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        let results = try await context.perform { () -> [(String, Double, String)] in
            var r = request(.words("semaphores"))
            r.fetchLimit = 5
            return try context.fetchSearchResults(r, snippet: SnippetStyle(open: "<", close: ">", words: 4, key: "body")).map { ($0.object.title, $0.relevance, $0.snippet) }
        }
        #expect(results.count == 1)
        #expect(results.first?.0 == "Locks")
        #expect((results.first?.1 ?? 0) > 0)
        #expect(results.first?.2.contains("<semaphores>") == true, "\(results.first?.2 ?? "")")
        let ordered = try await context.perform {
            try context.fetchSearchResults(request(.words("concurrency"))).map(\.relevance)
        }
        #expect(ordered.count == 4)
        #expect(ordered == ordered.sorted(by: >))
    }

    @Test func malformedQueriesAreTypedErrors() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        for query in ["\"unbalanced", "AND", "concurrency OR", "nosuchcolumn: x", "(a", "a NEAR("] {
            let code = try await context.perform { () -> StrataError.Code? in
                do { _ = try context.fetch(request(TextSearch(query))); return nil } catch let error as StrataError { return error.code } catch { return nil }
            }
            #expect(code == .malformedPredicate, "\(query)")
            let counted = try await context.perform { () -> StrataError.Code? in
                do { _ = try context.count(for: request(TextSearch(query))); return nil } catch let error as StrataError { return error.code } catch { return nil }
            }
            #expect(counted == .malformedPredicate, "\(query)")
        }
        // The same text searched literally is fine.
        for text in ["\"unbalanced", "AND", "concurrency OR", "nosuchcolumn: x", "(a", "a NEAR(", "*", "-"] {
            let titles = try await SearchFixture.titles(context, request(.words(text)))
            #expect(titles.count <= Self.memos.count, "\(text)")
            _ = try await SearchFixture.titles(context, request(.phrase(text)))
        }
        #expect(try await SearchFixture.titles(context, request(.words("concurrency OR"))).isEmpty)   // "OR" is a word here
    }

    @Test func badRequestsAreTyped() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        let codes = try await context.perform { () -> [StrataError.Code?] in
            func code(_ body: () throws -> Void) -> StrataError.Code? {
                do { try body(); return nil } catch let error as StrataError { return error.code } catch { return nil }
            }
            var plain = FetchRequest<Plain>()
            plain.textSearch = .words("x")
            var aggregate = request(.words("x"))
            aggregate.expressionsToFetch = [.count("rank", as: "n")]
            return [
                code { _ = try context.fetch(plain) },
                code { _ = try context.fetch(request(TextSearch("x", in: ["rank"]))) },
                code { _ = try context.fetchDictionaries(aggregate) },
                code { _ = try context.fetchSearchResults(request(nil)) },
                code { _ = try context.fetchSearchResults(request(.words("x")), snippet: SnippetStyle(key: "rank")) },
            ]
        }
        #expect(codes == Array(repeating: .invalidRequest, count: 5))
    }

    @Test func emptyQuerySearchesNothing() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        #expect(try await SearchFixture.titles(context, request(.words("  "), sortKeys: [SortKey("rank")])).count == Self.memos.count)
    }

    @Test func literalQuoting() {
        #expect(TextSearch.words("strict conc").query == "\"strict\" \"conc\"*")
        #expect(TextSearch.words("strict conc ").query == "\"strict\" \"conc\"")
        #expect(TextSearch.words("say \"hi\"", lastWordIsPrefix: false).query == "\"say\" \"\"\"hi\"\"\"")
        #expect(TextSearch.phrase("a b").query == "\"a b\"")
    }

    @Test func searchesReadTheStoreNotUnsavedChanges() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        let (found, held) = try await context.perform { () -> ([String], Bool) in
            let groceries = try context.fetch(FetchRequest<Memo>(predicate: .key("title") == "Groceries"))[0]
            groceries.body = "zebra"                       // unsaved: the store still says milk
            let added = context.insert(Memo.self)
            added.body = "zebra too"
            added.code = "new"
            let zebra = try context.fetch(request(.words("zebra")))
            let milk = try context.fetch(request(.words("milk")))
            return (zebra.map(\.title) + milk.map(\.title), milk.first === groceries && milk.first?.body == "zebra")
        }
        #expect(found == ["Groceries"])   // found by its saved text, not by its unsaved one
        #expect(held)                      // the context's object, unsaved values kept
        try await context.perform { try context.save() }
        #expect(try await SearchFixture.titles(context, request(.words("zebra"), sortKeys: [SortKey("rank")])).count == 2)
    }

    @Test func childContextsSearchTheStore() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await SearchFixture.store(dir, Self.memos)
        let child = ObjectContext(.privateQueue, parent: context)
        let titles = try await child.perform { try child.fetch(request(.words("milk"))).map(\.title) }
        #expect(titles == ["Groceries"])
    }
}

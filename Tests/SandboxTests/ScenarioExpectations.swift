import StrataRandom
import Foundation
import GRDB
import SandboxKit
import Strata
import StrataFetchedResults
import StrataStacks

/// What each scenario must have left in its store and reported, worked out by the test from
/// the source rows and the scenario's rules and compared with the rows a GRDB connection of
/// the test's own reads — independently of the scenario's own `check`.
///
/// For example:
/// ```swift
/// let problems = try ScenarioExpectations(data: data, kind: .hybrid).problems(in: record)
/// #expect(problems.isEmpty, "\(problems)")
/// ```
struct ScenarioExpectations {
    /// The books the run imported or seeded.
    let data: SourceData
    /// The stack the run used (stackless baselines ignore it).
    let kind: StackKind
    /// The `--batch` of the run.
    let batch: Int

    /// How a stored book's `author` column must look.
    enum AuthorLink {
        /// NULL.
        case none
        /// Exactly this key (the raw baselines write `authorIndex + 1` without author rows).
        case key(Int64)
        /// The key of the stored `Author` whose `index` is this.
        case authorIndex(Int)
    }

    /// What is wrong with `record` and its store; empty when everything is as expected.
    func problems(in record: RunRecord) throws -> [String] {
        let result = record.result
        if result.scenario == "search" { return try searchProblems(record) }
        let rows = switch (result.scenario, result.variant) {
        case ("migrate", "rename-attribute"?): try StoreRows(at: record.storeURL, title: "name")
        case ("migrate", "rename-entity"?): try StoreRows(at: record.storeURL, table: "Volume")
        default: try StoreRows(at: record.storeURL)
        }
        var problems: [String] = []
        if rows.bookCount != rows.books.count { problems.append("COUNT(*) \(rows.bookCount) but \(rows.books.count) rows read") }
        switch (result.scenario, result.variant) {
        case ("baseline", "raw-sqlite"?), ("baseline", "grdb-statement"?):
            problems += books(rows, author: { .key(Int64($0.authorIndex + 1)) })
        case ("baseline", "batch-insert"?), ("single-saves", nil), ("single-saves", "raw-commit"?), ("single-saves", "on-queue"?):
            problems += books(rows, author: { _ in .none })
        case ("import", nil):
            problems += books(rows, author: { .authorIndex($0.authorIndex) }) + authors(rows)
            if result.counters["authors"] != data.authorCount { problems.append("authors counter \(String(describing: result.counters["authors"]))") }
        case ("list-during-import", nil):
            problems += books(rows, author: { .authorIndex($0.authorIndex) }) + authors(rows)
            if result.counters["rowsInList"] != rows.bookCount {
                problems.append("the list shows \(String(describing: result.counters["rowsInList"])) rows, the store has \(rows.bookCount)")
            }
            if (result.counters["changeReports"] ?? 0) < 1 { problems.append("no change report reached the list") }
        case ("editor", nil):
            problems += books(rows, title: { "edited \($0.position)" }, author: { _ in .none })
        case ("editor-during-import", nil):
            let held = min(50, data.books.count)
            problems += books(rows, title: { "imported \($0.position)" }, rating: { $0.position < held ? 99 : $0.rating }, author: { _ in .none })
            if result.counters["editorHeld"] != held { problems.append("editorHeld \(String(describing: result.counters["editorHeld"]))") }
        case ("conflicts", nil):
            problems += conflicts(rows, result)
        case ("paging", nil):
            problems += books(rows, author: { _ in .none }) + paging(result)
        case ("reorder", nil):
            problems += reorder(rows, result)
        case ("engine", "raw-insert"?):
            problems += books(rows, author: { .key(Int64($0.authorIndex + 1)) })
        case ("engine", "context-insert"?), ("engine", "history-insert"?), ("engine", "batch-insert"?), ("engine", "raw-read"?), ("engine", "fetch"?), ("engine", "fetch-batched"?),
             ("engine", "floor-hashed"?), ("engine", "floor-indexed"?):
            problems += books(rows, author: { .authorIndex($0.authorIndex) }) + authors(rows)
        case ("engine", "raw-commit"?), ("engine", "single-save"?):
            // Capped at EngineScenario.singleSaveLimit, above this test's row count.
            problems += books(rows, author: { _ in .none })
        case ("sync", nil):
            // Peer 0's store: every book the other peers inserted, re-rated once by peer 1, each
            // author once (two peers inserting one author index end with one object).
            problems += books(rows, rating: { ($0.rating + 1) % 6 }, author: { .authorIndex($0.authorIndex) }) + authors(rows)
        case ("migrate", _):
            // Migrated in place: every book with its author, under the variant's names.
            problems += books(rows, author: { .authorIndex($0.authorIndex) }) + authors(rows)
        default:
            problems.append("no expectation written for \(result.scenario)/\(result.variant ?? "-")")
        }
        return problems
    }

    /// Exactly one stored book per source row, in position order, with the expected values.
    private func books(_ rows: StoreRows, title: (SourceData.BookRow) -> String = \.title,
                       rating: (SourceData.BookRow) -> Int64 = \.rating, author: (SourceData.BookRow) -> AuthorLink) -> [String] {
        let positions = rows.books.map(\.position)
        guard positions == data.books.map(\.position) else {
            return ["stored positions are not 0..<\(data.books.count) once each (\(positions.count) rows)"]
        }
        var wrong: [String: Int] = [:]
        for (stored, source) in zip(rows.books, data.books) {
            if stored.title != title(source) { wrong["title", default: 0] += 1 }
            if stored.rating != rating(source) { wrong["rating", default: 0] += 1 }
            if stored.published != source.published.timeIntervalSince1970 { wrong["published", default: 0] += 1 }
            switch author(source) {
            case .none: if stored.author != nil { wrong["author (expected none)", default: 0] += 1 }
            case .key(let key): if stored.author != key { wrong["author key", default: 0] += 1 }
            case .authorIndex(let index):
                if stored.author.flatMap({ rows.authors[$0]?.index }) != Int64(index) { wrong["author", default: 0] += 1 }
            }
        }
        return wrong.sorted { $0.key < $1.key }.map { "\($0.value) rows with a wrong \($0.key)" }
    }

    /// One author row per `authorCount`, named after its index.
    private func authors(_ rows: StoreRows) -> [String] {
        let stored = rows.authors.values.sorted { $0.index < $1.index }
        let expected = (0..<data.authorCount).map { (Int64($0), "Author \($0)") }
        if stored.map({ ($0.index, $0.name) }).elementsEqual(expected, by: ==) { return [] }
        return ["authors \(stored.map { "\($0.index):\($0.name)" }), expected \(expected.map(\.1))"]
    }

    /// Each policy's slice holds the winner the policy promises, on every row (not only the first).
    /// Root writers (the hybrid stack's import contexts) meet the store's versions: `.error` makes
    /// B's save throw (A stays), store-trump and rollback keep A, object-trump takes B's title and
    /// keeps A's rating (B did not touch it), overwrite writes B's whole snapshot (B's title, the
    /// original rating). Children of main push in memory: no conflict, B's push lands last.
    private func conflicts(_ rows: StoreRows, _ result: RunResult) -> [String] {
        let roots = kind == .hybrid
        let policies = MergePolicy.allCases
        let per = max(1, data.books.count / policies.count)
        var problems: [String] = []
        var wrong: [MergePolicy: Int] = [:]
        let expected = { (policy: MergePolicy) -> (title: String, ratingFromA: Bool) in
            guard roots else { return ("B", true) }
            switch policy {
            case .error, .mergeByPropertyStoreTrump, .rollback: return ("A", true)
            case .mergeByPropertyObjectTrump: return ("B", true)
            case .overwrite: return ("B", false)
            }
        }
        problems += books(rows, title: { "\(expected(policies[min(policies.count - 1, Int($0.position) / per)]).title) \($0.position)" },
                          rating: { expected(policies[min(policies.count - 1, Int($0.position) / per)]).ratingFromA ? 7 : $0.rating },
                          author: { _ in .none })
        for book in rows.books {
            let policy = policies[min(policies.count - 1, Int(book.position) / per)]
            if !book.title.hasPrefix(expected(policy).title + " ") { wrong[policy, default: 0] += 1 }
        }
        problems += wrong.map { "\($0.key.rawValue): \($0.value) rows without \(expected($0.key).title)'s title" }
        let errors = result.counters["conflictErrors"]
        if errors != (roots ? 1 : 0) { problems.append("conflictErrors \(String(describing: errors)), expected \(roots ? 1 : 0)") }
        return problems
    }

    /// The child touched two pages and the last row, and materialised no more than three pages.
    private func paging(_ result: RunResult) -> [String] {
        let page = max(1, batch)
        let touched = min(data.books.count, 2 * page) + (data.books.count > 2 * page ? 1 : 0)
        var problems: [String] = []
        if result.counters["touched"] != touched { problems.append("touched \(String(describing: result.counters["touched"])), expected \(touched)") }
        let materialized = result.counters["rowsMaterialized"] ?? -1
        if !(touched...min(data.books.count, 3 * page)).contains(materialized) {
            problems.append("\(materialized) rows materialised for \(touched) touched with pages of \(page)")
        }
        return problems
    }

    /// The stored order is the seeded moves replayed on the inserted rows (primary keys follow
    /// insertion order: row i was inserted at position i), positions are strictly increasing,
    /// and the writes reported lie between one per real move and `|from − to| + 1` per move.
    private func reorder(_ rows: StoreRows, _ result: RunResult) -> [String] {
        let n = data.books.count
        let moves = min(1_000, max(10, n / 10))
        var generator = SplitMix64(seed: UInt64(truncatingIfNeeded: n &* 31 &+ moves))
        guard rows.books.count == n else { return ["store has \(rows.books.count) of \(n) rows"] }
        var order = rows.books.map(\.id).sorted()
        var fewest = 0, most = 0
        if n > 1 {
            for _ in 0..<moves {
                let source = Int(generator.next() % UInt64(n)), destination = Int(generator.next() % UInt64(n))
                if source != destination { fewest += 1; most += abs(source - destination) + 1 }
                order.insert(order.remove(at: source), at: destination)
            }
        }
        var problems: [String] = []
        let positions = rows.books.map(\.position)
        if zip(positions, positions.dropFirst()).contains(where: { $0 >= $1 }) { problems.append("stored positions are not strictly increasing") }
        if rows.books.map(\.id) != order { problems.append("the stored order is not the moves replayed") }
        if result.counters["moves"] != moves { problems.append("moves \(String(describing: result.counters["moves"])), expected \(moves)") }
        if result.counters["delegateCallsDuringMoves"] != 0 { problems.append("delegate calls during moves") }
        let written = result.counters["positionsWritten"] ?? -1
        if !(fewest...max(fewest, most)).contains(written) { problems.append("\(written) positions written, expected \(fewest)...\(most)") }
        return problems
    }
}

extension ScenarioExpectations {
    /// The `search` scenario's store holds one note per object, indexed (the FTS5 integrity
    /// check passes), and every keystroke showed at most 50 notes.
    func searchProblems(_ record: RunRecord) throws -> [String] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: record.storeURL.path, configuration: configuration)
        defer { try? queue.close() }
        var problems: [String] = []
        let (notes, indexed) = try queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM SearchNote") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _fts_SearchNote_docsize") ?? -1)
        }
        if notes != data.books.count { problems.append("\(notes) notes stored, expected \(data.books.count)") }
        if indexed != notes { problems.append("\(indexed) notes indexed of \(notes)") }
        let counters = record.result.counters
        let keystrokes = SearchText(seed: SearchScenario.seed).typed.count
        if counters["keystrokes"] != keystrokes { problems.append("keystrokes \(String(describing: counters["keystrokes"])), expected \(keystrokes)") }
        let shown = (1...keystrokes).map { counters["shown\($0)"] ?? -1 }
        if shown.contains(where: { $0 < 0 || $0 > SearchScenario.shown }) { problems.append("shown per keystroke \(shown)") }
        if shown.reduce(0, +) != counters["shown"] { problems.append("shown total \(String(describing: counters["shown"])) is not the sum of \(shown)") }
        return problems
    }
}

import Foundation
import Strata

/// `search`: search-as-you-type over `--objects` notes with a searchable title and body. The
/// text (two words) is typed one character at a time; each keystroke fetches the first 50
/// matching notes on a main-queue context, and only that fetch is timed. `contains` does it
/// with `(title CONTAINS[cd] w OR body CONTAINS[cd] w)` for each typed word (a scan of the
/// notes until 50 match); `fts` with the full-text index (`TextSearch.words(_:in:)`),
/// the first 50 matches in the notes' order, as `contains`; `fts-ranked` the 50 most relevant
/// (bm25 scores every match first). Each FTS variant's `×raw` is its speed-up over `contains`;
/// the detail gives p50 and max per keystroke (the target: ≤ 5 ms at 100 000 notes).
///
/// For example:
/// ```swift
/// swift run -c release Sandbox --scenario search --objects 100000
/// ```
public struct SearchScenario: Scenario {
    public static let name = "search"
    public static let summary = "search-as-you-type over notes: each keystroke's first 50 matches, full-text index against a CONTAINS[cd] scan"
    public static let variants = [
        ScenarioVariant(name: "contains", usesStack: false, baseline: "contains"),
        ScenarioVariant(name: "fts", usesStack: false, baseline: "contains"),
        ScenarioVariant(name: "fts-ranked", usesStack: false, baseline: "contains"),
    ]
    /// Results shown per keystroke.
    public static let shown = 50
    /// The seed of the notes' text.
    public static let seed: UInt64 = 2026

    public init() {}

    static func model() throws -> ObjectModel { try ObjectModel(SearchNote.self) }

    /// The notes, written by batch insert (the index is built by its triggers, untimed).
    public func prepare(_ run: ScenarioRun) async throws {
        let coordinator = try await StoreCoordinator(model: try Self.model(), store: .sqlite(run.storeURL))
        let text = SearchText(seed: Self.seed)
        let chunk = 10_000
        var start = 0
        while start < run.objects {
            let end = min(run.objects, start + chunk)
            let rows: [[PropertyValue]] = (start..<end).map { i in
                let note = text.note(i)
                return [.string(note.title), .string(note.body), .integer(Int64(i))]
            }
            _ = try coordinator.execute(BatchInsertRequest(entityName: "SearchNote", keys: ["title", "body", "position"], rows: rows))
            start = end
            run.step(start, of: run.objects, "notes")
        }
        try coordinator.close()
    }

    /// The request of one keystroke.
    static func request(_ typed: String, variant: String) -> FetchRequest<SearchNote> {
        var request = FetchRequest<SearchNote>()   // notes in the order they were written
        request.fetchLimit = shown
        if variant == "fts" {
            request.textSearch = .words(typed)
            request.textSearch?.ordersByRelevance = false
        } else if variant == "fts-ranked" {
            request.textSearch = .words(typed)     // the most relevant first (bm25 of every match)
        } else {
            let words = typed.split(separator: " ").map(String.init)
            request.predicate = .and(words.map { word in
                .or([ObjectPredicate.key("title").contains(word, options: [.caseInsensitive, .diacriticInsensitive]),
                     ObjectPredicate.key("body").contains(word, options: [.caseInsensitive, .diacriticInsensitive])])
            })
        }
        return request
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let variant = run.variant ?? "fts"
        let coordinator = try await StoreCoordinator(model: try Self.model(), store: .sqlite(run.storeURL))
        defer { try? coordinator.close() }
        var perKeystroke: [String] = []
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        let typed = SearchText(seed: Self.seed).typed
        var timings: [Double] = []
        var shownCounts: [Int] = []
        for length in 1...typed.count {
            let prefix = String(typed.prefix(length))
            let request = Self.request(prefix, variant: variant)
            let (seconds, count) = try await main.perform { () throws -> (Double, Int) in
                let start = ContinuousClock.now
                let notes = try main.fetch(request)
                var characters = 0
                for note in notes { characters &+= note.title.utf8.count }   // what a list row shows
                let elapsed = ContinuousClock.now - start
                main.reset()   // each keystroke starts from an empty context, as a fresh list would
                return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, characters > 0 ? notes.count : 0)
            }
            timings.append(seconds)
            shownCounts.append(count)
            perKeystroke.append(String(format: "%.1f", seconds * 1000))
        }
        let sorted = timings.sorted()
        let p50 = sorted[sorted.count / 2], worst = sorted.last ?? 0
        let total = timings.reduce(0, +)
        var counters = ["keystrokes": timings.count, "p50Micros": Int(p50 * 1e6), "maxMicros": Int(worst * 1e6), "shown": shownCounts.reduce(0, +)]
        for (i, count) in shownCounts.enumerated() { counters["shown\(i + 1)"] = count }
        let detail = String(format: "%@: p50 %.2f ms, max %.2f ms per keystroke over %d keystrokes of \"%@\"; %d shown at the last; ms per keystroke: %@",
                            variant, p50 * 1000, worst * 1000, timings.count, typed, shownCounts.last ?? 0, perKeystroke.joined(separator: " "))
        return ScenarioOutcome(objects: run.objects, measuredSeconds: total, detail: detail, counters: counters)
    }

    /// The counts add up: each keystroke showed `min(50, matches)` notes, where the matches are
    /// counted again here; a full-text match is a word prefix, so it always contains the typed
    /// words and the index never finds more notes than the scan.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let variant = run.variant ?? "fts"
        let coordinator = try await StoreCoordinator(model: try Self.model(), store: .sqlite(run.storeURL))
        defer { try? coordinator.close() }
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let typed = SearchText(seed: Self.seed).typed
        var problems: [String] = []
        for length in 1...typed.count {
            let prefix = String(typed.prefix(length))
            let (matches, scanned) = try await context.perform { () throws -> (Int, Int) in
                var own = Self.request(prefix, variant: variant), scan = Self.request(prefix, variant: "contains")
                own.fetchLimit = 0
                scan.fetchLimit = 0
                return (try context.count(for: own), try context.count(for: scan))
            }
            if outcome.counters["shown\(length)"] != min(Self.shown, matches) {
                problems.append("\"\(prefix)\" showed \(outcome.counters["shown\(length)"] ?? -1) of \(matches) matches")
            }
            if matches > scanned { problems.append("\"\(prefix)\": the index found \(matches) notes, the scan \(scanned)") }
            if length == typed.count, matches == 0, run.objects >= 10_000 { problems.append("nothing matched \"\(typed)\"") }
        }
        var result = outcome
        if !problems.isEmpty { result.check = problems.prefix(3).joined(separator: "; ") }
        return result
    }
}

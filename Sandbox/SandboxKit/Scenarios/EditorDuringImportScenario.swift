import Foundation
import Strata

/// `editor-during-import`: an auto-updating editor holds the first books with an unsaved
/// rating edit while an import rewrites every title in batches. The editor must see the new
/// titles, keep its own edit, and commit it on top of the import.
///
/// For example:
/// ```swift
/// let outcome = try await EditorDuringImportScenario().perform(run)
/// ```
public struct EditorDuringImportScenario: Scenario {
    public static let name = "editor-during-import"
    public static let summary = "an auto-updating editor open on books that an import rewrites"

    /// The rating the editor writes.
    static let editedRating: Int64 = 99
    /// How many books the editor holds.
    static func held(_ run: ScenarioRun) -> Int { min(50, run.data.books.count) }

    public init() {}

    public func prepare(_ run: ScenarioRun) async throws {
        try await BookSeeder.seed(run, into: try run.requireStack())
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let stack = try run.requireStack()
        let held = Self.held(run), rating = Self.editedRating
        let editor = stack.newEditorContext(autoUpdating: true)
        try await editor.perform {
            var request = FetchRequest<Book>(sortKeys: [SortKey("position")])
            request.fetchLimit = held
            for book in try editor.fetch(request) { book.rating = rating }
        }
        // The import rewrites every title, batch by batch.
        let importer = stack.newImportContext()
        let total = run.data.books.count, batch = max(1, run.batch)
        var pushes = 0
        for start in stride(from: 0, to: total, by: batch) {
            let end = min(total, start + batch)
            try await importer.perform {
                let books = try importer.fetch(FetchRequest<Book>(
                    predicate: try ObjectPredicate("position >= %@ AND position < %@", Int64(start), Int64(end))))
                for book in books { book.title = "imported \(book.position)" }
                try importer.save()
                importer.reset()
            }
            if try await run.finishSave(of: importer) { pushes += 1 }
            run.step(end, of: total)
        }
        // The editor follows (merges may arrive after the last save returns).
        let deadline = ContinuousClock.now + .seconds(10)
        var followed = false
        while !followed && ContinuousClock.now < deadline {
            followed = try await editor.perform { () throws -> Bool in
                var request = FetchRequest<Book>(sortKeys: [SortKey("position")])
                request.fetchLimit = held
                return try editor.fetch(request).allSatisfy { $0.title == "imported \($0.position)" && $0.rating == rating }
            }
            if !followed { try await Task.sleep(for: .milliseconds(5)) }
        }
        var problems: [String] = []
        if !followed { problems.append("the editor did not see the import's titles with its own ratings kept") }
        do {
            try await editor.perform { try editor.save() }
            if try await run.finishSave(of: editor) { pushes += 1 }
        } catch {
            problems.append("committing the editor failed: \(error)")
        }
        return ScenarioOutcome(objects: total, pushesThroughMain: pushes,
                               check: problems.isEmpty ? "ok" : problems.joined(separator: "; "), counters: ["editorHeld": held])
    }

    /// The store holds the import's titles everywhere and the editor's ratings on its books.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let stored = try await StoreInspector.books(at: run.storeURL, model: run.model)
        let held = Self.held(run)
        let staleTitles = stored.filter { $0.value.title != "imported \($0.key)" }.count
        let lostRatings = stored.filter { $0.key < Int64(held) && $0.value.rating != Self.editedRating }.count
        var result = outcome
        var problems = outcome.check == "ok" ? [] : [outcome.check]
        if staleTitles > 0 { problems.append("\(staleTitles) stored titles are not the import's") }
        if lostRatings > 0 { problems.append("\(lostRatings) of \(held) editor ratings did not reach the store") }
        result.check = problems.isEmpty ? "ok" : problems.joined(separator: "; ")
        return result
    }
}

/// `single-saves`: `--objects` inserts in the import context with a save (to disk) after each.
///
/// For example:
/// ```swift
/// let outcome = try await SingleSavesScenario().perform(run)
/// ```
public struct SingleSavesScenario: Scenario {
    public static let name = "single-saves"
    public static let summary = "N inserts in the import context, each saved to disk on its own"

    public init() {}

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let stack = try run.requireStack()
        let importer = stack.newImportContext()
        var pushes = 0
        for row in run.data.books {
            try await importer.perform {
                importer.insertBook(row)
                try importer.save()
            }
            if try await run.finishSave(of: importer) { pushes += 1 }
            run.step(Int(row.position) + 1, of: run.data.books.count)
        }
        return ScenarioOutcome(objects: run.data.books.count, pushesThroughMain: pushes)
    }

    /// Every book reached the store.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let stored = try await StoreInspector.books(at: run.storeURL, model: run.model)
        var result = outcome
        if stored.count != run.data.books.count { result.check = "store has \(stored.count) of \(run.data.books.count) books" }
        return result
    }
}

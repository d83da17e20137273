/// `import`: authors and books, then their relationships, saved every `--batch` objects in
/// the stack's import context, while the UI's list of the first 50 books follows along.
///
/// For example:
/// ```swift
/// let outcome = try await ImportScenario().perform(run)
/// ```
public struct ImportScenario: Scenario {
    public static let name = "import"
    public static let summary = "authors and books, then relationships, saved every --batch objects in the import context"

    public init() {}

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let stack = try run.requireStack()
        let pushes = try await BookImport(run: run).run(in: stack.newImportContext())
        return ScenarioOutcome(objects: run.data.books.count, pushesThroughMain: pushes, counters: ["authors": run.data.authorCount])
    }

    /// Every book reached the store with its author.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let stored = try await StoreInspector.books(at: run.storeURL, model: run.model)
        let orphans = stored.values.filter { !$0.hasAuthor }.count
        var result = outcome
        if stored.count != run.data.books.count || orphans != 0 {
            result.check = "store has \(stored.count) of \(run.data.books.count) books, \(orphans) without an author"
        }
        return result
    }
}

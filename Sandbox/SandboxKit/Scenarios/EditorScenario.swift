import Strata

/// `editor`: an editor context changes every book's title and commits (save, then the stack
/// to disk); a second editor changes them again and is dropped. The store must hold the
/// committed titles and none of the discarded ones.
///
/// For example:
/// ```swift
/// let outcome = try await EditorScenario().perform(run)
/// ```
public struct EditorScenario: Scenario {
    public static let name = "editor"
    public static let summary = "edit N books in an editor and commit; edit again and discard; check the store"

    public init() {}

    public func prepare(_ run: ScenarioRun) async throws {
        try await BookSeeder.seed(run, into: try run.requireStack())
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let stack = try run.requireStack()
        let committing = stack.newEditorContext(autoUpdating: false)
        try await committing.perform {
            for book in try committing.fetch(FetchRequest<Book>()) { book.title = "edited \(book.position)" }
            try committing.save()
        }
        let pushed = try await run.finishSave(of: committing)
        run.step(1, of: 2)
        let discarding = stack.newEditorContext(autoUpdating: false)
        try await discarding.perform {
            for book in try discarding.fetch(FetchRequest<Book>()) { book.title = "discarded \(book.position)" }
        }
        run.step(2, of: 2)   // the discarding editor is dropped unsaved
        return ScenarioOutcome(objects: run.data.books.count, pushesThroughMain: pushed ? 1 : 0)
    }

    /// The store holds every committed title and no discarded one.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let stored = try await StoreInspector.books(at: run.storeURL, model: run.model)
        let wrong = stored.filter { $0.value.title != "edited \($0.key)" }.count
        var result = outcome
        if stored.count != run.data.books.count || wrong != 0 {
            result.check = "store has \(stored.count) books, \(wrong) without the committed title"
        }
        return result
    }
}

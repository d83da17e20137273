import Strata

/// `single-saves`: `--objects` inserts in the import context with a save (to disk) after each,
/// next to its floor in the same run: `raw-commit`, the same books each inserted in a
/// transaction of its own with the SQLite C API (`BEGIN IMMEDIATE`, one prepared insert,
/// `COMMIT`). The stacks' `×raw` column is their rate over that one. The plain form awaits
/// `importer.perform { insert; save }` per book from a task on Swift's global executor (two
/// thread hand-offs a save); `on-queue` runs the same loop inside
/// `withTaskExecutorPreference(importer.executor)`, where each `perform` runs at once.
///
/// For example:
/// ```swift
/// let outcome = try await SingleSavesScenario().perform(run)
/// ```
public struct SingleSavesScenario: Scenario {
    public static let name = "single-saves"
    public static let summary = "N inserts in the import context, each saved to disk on its own (and raw one-row transactions)"
    /// The raw SQLite variant every stack's rate is compared with.
    public static let rawVariant = "raw-commit"
    /// The variant whose loop runs on the import context's queue (its task executor).
    public static let onQueueVariant = "on-queue"

    public static let variants = [
        ScenarioVariant(name: rawVariant, usesStack: false, baseline: rawVariant),
        ScenarioVariant(name: nil, usesStack: true, baseline: rawVariant),
        ScenarioVariant(name: onQueueVariant, usesStack: true, baseline: rawVariant),
    ]

    public init() {}

    /// The raw variant writes into a file that has the engine's schema.
    public func prepare(_ run: ScenarioRun) async throws {
        if run.stack == nil { try await BaselineScenario.createSchema(at: run.storeURL, model: run.model) }
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        if run.variant == Self.rawVariant {
            let rows = run.data.books[...]
            return ScenarioOutcome(objects: rows.count, measuredSeconds: try RawSQLiteCommit.insertOneByOne(rows, into: run.storeURL))
        }
        let stack = try run.requireStack()
        let importer = stack.newImportContext()
        let pushes = if run.variant == Self.onQueueVariant {
            try await withTaskExecutorPreference(importer.executor) { try await saveOneByOne(importer, run) }
        } else {
            try await saveOneByOne(importer, run)
        }
        return ScenarioOutcome(objects: run.data.books.count, pushesThroughMain: pushes)
    }

    /// Inserts and saves each book on its own; answers how many saves went on through main.
    private func saveOneByOne(_ importer: ObjectContext, _ run: ScenarioRun) async throws -> Int {
        var pushes = 0
        for row in run.data.books {
            try await importer.perform {
                importer.insertBook(row)
                try importer.save()
            }
            if try await run.finishSave(of: importer) { pushes += 1 }
            run.step(Int(row.position) + 1, of: run.data.books.count)
        }
        return pushes
    }

    /// Every book reached the store.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let stored = try await StoreInspector.books(at: run.storeURL, model: run.model)
        var result = outcome
        if stored.count != run.data.books.count { result.check = "store has \(stored.count) of \(run.data.books.count) books" }
        return result
    }
}

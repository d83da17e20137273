import Foundation
import Strata

/// `baseline`: the import's books written without objects — raw SQLite (C API, one prepared
/// statement, one transaction), GRDB's prepared statement, and the engine's batch insert
/// through the stack's import context. Each is its own row; only the insert is timed. Raw
/// SQLite is the best of three inserts into fresh files (the reference every ratio uses).
///
/// For example:
/// ```swift
/// swift run -c release Sandbox --scenario baseline --stack hybrid
/// ```
public struct BaselineScenario: Scenario {
    public static let name = "baseline"
    public static let summary = "the same books through raw SQLite, GRDB's prepared statement and the engine's batch insert"
    /// The raw SQLite variant, whose rate is the run's reference.
    public static let rawVariant = "raw-sqlite"

    public static let variants = [
        ScenarioVariant(name: rawVariant, usesStack: false),
        ScenarioVariant(name: "grdb-statement", usesStack: false),
        ScenarioVariant(name: "batch-insert", usesStack: true),
    ]

    public init() {}

    /// The stackless variants write into a file that has the engine's schema.
    public func prepare(_ run: ScenarioRun) async throws {
        if run.stack == nil { try await Self.createSchema(at: run.storeURL, model: run.model) }
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let seconds: Double
        switch run.variant {
        case Self.rawVariant?:
            seconds = try await RawSQLiteInsert.bestOf(RawSQLiteInsert.repetitions, run.data, scratch: run.scratch, model: run.model, first: run.storeURL)
        case "grdb-statement"?: seconds = try GRDBStatementInsert.insert(run.data, into: run.storeURL)
        default: seconds = try await BatchInsertBaseline.insert(run.data, through: try run.requireStack())
        }
        return ScenarioOutcome(objects: run.data.books.count, measuredSeconds: seconds)
    }

    /// Every row is in the file.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let stored = try await StoreInspector.books(at: run.storeURL, model: run.model)
        var result = outcome
        if stored.count != run.data.books.count { result.check = "store has \(stored.count) of \(run.data.books.count) books" }
        return result
    }

    /// Opens `url` with the engine (creating its tables and indexes), then closes it.
    static func createSchema(at url: URL, model: ObjectModel) async throws {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        try coordinator.close()
    }
}

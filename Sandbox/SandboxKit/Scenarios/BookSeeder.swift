public import Strata
public import StrataStacks

/// Unmeasured set-up: writes the run's books straight to the store with a batch insert
/// (no authors), for scenarios that work on existing rows.
///
/// For example:
/// ```swift
/// try await BookSeeder.seed(run, into: stack)
/// ```
public enum BookSeeder {
    /// Batch-inserts every book of `run.data` through an import context of `stack`.
    public static func seed(_ run: ScenarioRun, into stack: any CoreStack) async throws {
        let importer = stack.newImportContext()
        let request = bookRequest(run.data)
        _ = try await importer.perform { try importer.execute(request) }
    }

    /// A batch insert request for the books of `data` (no authors).
    public static func bookRequest(_ data: SourceData) -> BatchInsertRequest {
        BatchInsertRequest(
            entityName: "Book", keys: ["title", "published", "rating", "position"],
            rows: data.books.map { [.string($0.title), .date($0.published), .integer($0.rating), .integer($0.position)] })
    }
}

import Foundation
import Strata
public import StrataStacks

/// The engine's fastest path on the same rows: one ``BatchInsertRequest`` executed in the
/// stack's import context (no managed objects). Timed from building the request to the
/// insert returning.
///
/// For example:
/// ```swift
/// let seconds = try await BatchInsertBaseline.insert(data, through: stack)
/// ```
public enum BatchInsertBaseline {
    /// Batch-inserts every book of `data` through an import context of `stack`.
    public static func insert(_ data: SourceData, through stack: any CoreStack) async throws -> Double {
        let importer = stack.newImportContext()
        let clock = ContinuousClock()
        let start = clock.now
        let ids = try await importer.perform { try importer.execute(BookSeeder.bookRequest(data)) }
        let seconds = (clock.now - start).sandboxSeconds
        guard ids.count == data.books.count else { throw SandboxError("batch insert wrote \(ids.count) of \(data.books.count) rows") }
        return seconds
    }
}

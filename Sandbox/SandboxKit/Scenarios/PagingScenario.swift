import Strata

/// `paging`: in a child of main (a background context), fetch every book sorted with a
/// batch size of `--batch`, then read the first two pages and the last book, as a scrolling
/// list would. Counts the objects materialised in the child (not faults) and in main.
///
/// For example:
/// ```swift
/// let outcome = try await PagingScenario().perform(run)
/// print(outcome.counters["rowsMaterialized"] ?? 0)
/// ```
public struct PagingScenario: Scenario {
    public static let name = "paging"
    public static let summary = "a fetch with a batch size in a child of main; rows materialised are counted"

    public init() {}

    public func prepare(_ run: ScenarioRun) async throws {
        try await BookSeeder.seed(run, into: try run.requireStack())
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let stack = try run.requireStack()
        let child = stack.newBackgroundContext()
        let pageSize = max(1, run.batch)
        let (fetched, touched, materialized) = try await child.perform { () throws -> (Int, Int, Int) in
            var request = FetchRequest<Book>(sortKeys: [SortKey("position")])
            request.fetchBatchSize = pageSize
            let books = try child.fetch(request)
            var characters = 0, touched = 0
            for book in books.prefix(2 * pageSize) { characters &+= book.title.utf8.count; touched += 1 }
            if let last = books.last { characters &+= last.title.utf8.count; touched += 1 }
            let materialized = child.registeredObjects.filter { !$0.isFault }.count
            return (books.count, characters > 0 ? touched : 0, materialized)
        }
        let main = stack.mainContext
        let inMain = try await main.perform { main.registeredObjects.filter { !$0.isFault }.count }
        let limit = min(fetched, 3 * pageSize)
        var problems: [String] = []
        if fetched != run.data.books.count { problems.append("fetched \(fetched) of \(run.data.books.count) books") }
        if materialized > limit { problems.append("\(materialized) rows materialised in the child for \(touched) touched (pages allow \(limit))") }
        return ScenarioOutcome(objects: fetched, check: problems.isEmpty ? "ok" : problems.joined(separator: "; "),
                               detail: "page size \(pageSize): touched \(touched), materialised \(materialized) in the child, \(inMain) in main",
                               counters: ["rowsMaterialized": materialized, "rowsMaterializedInMain": inMain, "touched": touched])
    }
}

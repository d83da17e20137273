import Dispatch
import Foundation
import Strata
import StrataFetchedResults

/// `list-during-import`: a fetched results controller on the main context (all books by
/// position) follows the `import` scenario's import. Reports the change reports delivered and
/// the main-queue time spent delivering them (from will-change to did-change of each report;
/// the run's main-busy figure covers everything else main did, merges included).
///
/// For example:
/// ```swift
/// let outcome = try await ListDuringImportScenario().perform(run)
/// print(outcome.counters["changeReports"] ?? 0)
/// ```
public struct ListDuringImportScenario: Scenario {
    public static let name = "list-during-import"
    public static let summary = "a fetched results controller on main follows an import; time spent in its change reports"

    public init() {}

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let stack = try run.requireStack()
        let main = stack.mainContext
        let follower = ReportTimer()
        try await main.perform {
            let request = FetchRequest<Book>(sortKeys: [SortKey("position")])
            let controller = try FetchedResultsController(fetchRequest: request, context: main)
            controller.delegate = follower
            try controller.performFetch()
            follower.controller = controller
        }
        let pushes = try await BookImport(run: run).run(in: stack.newImportContext())
        // Merges into main may still be queued: wait (bounded) until the list holds every book.
        let expected = run.data.books.count
        let deadline = ContinuousClock.now + .seconds(120)
        var shown = 0
        while ContinuousClock.now < deadline {
            // Counted as a table view asks (rows per section), not by making an array of every book.
            shown = try await main.perform { follower.controller?.sections.reduce(0) { $0 + $1.numberOfObjects } ?? 0 }
            if shown == expected { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        let (reports, nanoseconds) = try await main.perform { (follower.reports, follower.nanoseconds) }
        var outcome = ScenarioOutcome(objects: expected, pushesThroughMain: pushes, counters: [
            "changeReports": reports,
            "changeReportMicroseconds": Int(nanoseconds / 1_000),
            "rowsInList": shown,
        ])
        if shown != expected { outcome.check = "the list shows \(shown) of \(expected) books" }
        return outcome
    }
}

/// Times each change report of the controller on the main queue.
final class ReportTimer: FetchedResultsControllerDelegate, @unchecked Sendable {  // safe: used only on the main context's queue
    typealias Object = Book
    var controller: FetchedResultsController<Book>?
    var reports = 0
    var nanoseconds: UInt64 = 0
    private var started: UInt64 = 0

    func controllerWillChangeContent(_ controller: FetchedResultsController<Book>) {
        started = DispatchTime.now().uptimeNanoseconds
    }

    func controllerDidChangeContent(_ controller: FetchedResultsController<Book>) {
        nanoseconds += DispatchTime.now().uptimeNanoseconds &- started
        reports += 1
    }
}

import Foundation
import Strata
import StrataFetchedResults

/// `reorder`: a list of N books on the main context, M seeded manual moves, each inside the
/// controller's manual-reorder suppression, renumbering positions with the fewest writes and
/// saving; where main is a child (a writer owns the store), the stack is saved once after the
/// moves so they reach disk, as an app would. Reports `delegateCallsDuringMoves` (must be 0)
/// and `positionsWritten`.
///
/// For example:
/// ```swift
/// let outcome = try await ReorderScenario().perform(run)
/// print(outcome.counters["positionsWritten"] ?? 0)
/// ```
public struct ReorderScenario: Scenario {
    public static let name = "reorder"
    public static let summary = "N books in a list on main, M manual moves with suppression; delegate calls during moves and positions written"

    public init() {}

    /// Moves: a tenth of the rows, at least 10 and at most 1 000.
    static func moves(for rows: Int) -> Int { min(1_000, max(10, rows / 10)) }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let main = try run.requireStack().mainContext
        let rows = run.objects, moves = Self.moves(for: rows), seed = UInt64(truncatingIfNeeded: rows &* 31 &+ Self.moves(for: rows))
        let result = try await main.perform {
            try ReorderBenchmark.run(context: main, entityName: "Book", positionKey: "position", rows: rows, moves: moves, seed: seed,
                                      progress: run.progress)
        }
        try await run.finishSave(of: main)   // main's own save to its writer: not a push through main
        var outcome = ScenarioOutcome(objects: rows, counters: [
            "moves": result.moves,
            "delegateCallsDuringMoves": result.delegateCallsDuringMoves,
            "positionsWritten": result.positionsWritten,
        ])
        if result.delegateCallsDuringMoves != 0 { outcome.check = "\(result.delegateCallsDuringMoves) delegate calls during manual moves" }
        if !result.matchesFreshFetch { outcome.check = "the controller differs from a fresh fetch after the moves" }
        return outcome
    }
}

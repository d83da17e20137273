import Foundation
import Strata
import StrataFetchedResults

/// `reorder`: a list of N books on the main context (positions
/// ``PositionRenumbering/spacing`` apart), M seeded manual moves, each its own block on the
/// main queue inside the controller's manual-reorder suppression, writing positions with the
/// spaced plan and saving; where main is a child (a writer owns the store), the stack is saved
/// once after the moves so they reach disk, as an app would. The measured time is the moves'
/// (`movesMilliseconds`; the run's wall and main busy include seeding the list). Reports `delegateCallsDuringMoves` (must be 0),
/// `positionsWritten`, the most one move wrote, and each move's main-queue time (p50, p99, max).
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
        let benchmark = try await main.perform {
            try ReorderBenchmark(context: main, entityName: "Book", positionKey: "position", rows: rows, seed: seed)
        }
        // The list is on disk before the user starts dragging (where main is a child, its seed
        // would otherwise sit unsaved in the writer, and the Sandbox's 50-row UI list, which
        // refetches after every change set, would fold all of it into each refetch).
        try await run.finishSave(of: main)
        for move in 0..<moves {
            try await main.perform { try benchmark.move() }   // one drag-and-drop per block
            if (move + 1) % 10 == 0 || move + 1 == moves { run.progress.report(move + 1, of: moves, unit: "moves") }
        }
        let result = try await main.perform { try benchmark.finish() }
        try await run.finishSave(of: main)   // main's own save to its writer: not a push through main
        let p50 = result.moveMicroseconds(at: 0.5), p99 = result.moveMicroseconds(at: 0.99), worst = result.moveMicroseconds(at: 1)
        var outcome = ScenarioOutcome(objects: rows, counters: [
            "movesMilliseconds": Int(result.elapsedSeconds * 1_000),
            "moves": result.moves,
            "delegateCallsDuringMoves": result.delegateCallsDuringMoves,
            "positionsWritten": result.positionsWritten,
            "mostWrittenByOneMove": result.mostWrittenByOneMove,
            "moveMicrosecondsP50": Int(p50),
            "moveMicrosecondsP99": Int(p99),
            "moveMicrosecondsMax": Int(worst),
        ])
        outcome.detail = String(format: "%d moves in %.3f s: %d positions written (at most %d by one move); a move and its save on main: p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                                result.moves, result.elapsedSeconds, result.positionsWritten, result.mostWrittenByOneMove, p50 / 1_000, p99 / 1_000, worst / 1_000)
        if result.delegateCallsDuringMoves != 0 { outcome.check = "\(result.delegateCallsDuringMoves) delegate calls during manual moves" }
        if !result.matchesFreshFetch { outcome.check = "the controller differs from a fresh fetch after the moves" }
        return outcome
    }
}

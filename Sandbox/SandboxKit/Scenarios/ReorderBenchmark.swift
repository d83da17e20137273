public import Strata
import StrataFetchedResults
import StrataRandom
import Foundation

/// What a ``ReorderBenchmark`` run measured.
///
/// For example:
/// ```swift
/// print(result.delegateCallsDuringMoves, result.positionsWritten, result.elapsedSeconds)
/// ```
public struct ReorderBenchmarkResult: Sendable, Hashable {
    /// Rows in the list.
    public var rows: Int
    /// Manual moves made.
    public var moves: Int
    /// Delegate calls made while the moves ran (must be 0).
    public var delegateCallsDuringMoves: Int
    /// Position values written by all moves.
    public var positionsWritten: Int
    /// Wall time of the moves (with their saves), in seconds.
    public var elapsedSeconds: Double
    /// Whether the controller equalled a fresh fetch afterwards.
    public var matchesFreshFetch: Bool
}

/// The `reorder` scenario: a list of N rows ordered by an integer position attribute, M seeded
/// random manual moves, each inside ``FetchedResultsController/performManualReorder(_:)`` with
/// the fewest position writes and a save.
///
/// For example:
/// ```swift
/// let result = try context.performAndWait {
///     try ReorderBenchmark.run(context: context, entityName: "Row", positionKey: "position", rows: 1_000, moves: 200, seed: 42)
/// }
/// ```
public enum ReorderBenchmark {
    /// Inserts `rows` objects of `entityName` (positions 0, 1, … after any existing ones), saves,
    /// then makes `moves` seeded moves, saving after each. Call it on `context`'s queue.
    /// `progress`, when given, counts the moves made.
    ///
    /// - Throws: Strata's errors (an unknown entity or key, a failed save).
    public static func run(context: ObjectContext, entityName: String, positionKey: String, rows: Int, moves: Int,
                           seed: UInt64, progress: ProgressCounter? = nil) throws -> ReorderBenchmarkResult {
        var request = FetchRequest<ManagedObject>(entityName: entityName, sortKeys: [SortKey(positionKey)])
        let existing = try context.count(for: request)
        for i in 0..<rows {
            let object = try context.insert(entityNamed: entityName)
            try object.setValue(Int64(existing + i), forKey: positionKey)
        }
        try context.save()
        request.includesPendingChanges = true
        let controller = try FetchedResultsController(fetchRequest: request, context: context)
        let counter = CallCounter()
        controller.delegate = counter
        try controller.performFetch()

        var generator = SplitMix64(seed: seed)
        var written = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let total = controller.sections[0].numberOfObjects
        if total > 1 {
            for move in 0..<moves {
                progress?.report(move, of: moves, unit: "moves")
                let source = Int(generator.next() % UInt64(total))
                let destination = Int(generator.next() % UInt64(total))
                try controller.performManualReorder {
                    written += try controller.moveObject(from: FetchedIndexPath(section: 0, row: source),
                                                         to: FetchedIndexPath(section: 0, row: destination), positionKey: positionKey)
                    try context.save()
                }
            }
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let calls = counter.calls
        let fresh = try context.fetchObjectIDs(request)
        return ReorderBenchmarkResult(rows: total, moves: moves, delegateCallsDuringMoves: calls, positionsWritten: written,
                                      elapsedSeconds: elapsed, matchesFreshFetch: fresh == controller.snapshot.itemIdentifiers)
    }

    /// Counts every delegate call.
    private final class CallCounter: FetchedResultsControllerDelegate {
        var calls = 0
        func controllerWillChangeContent(_ controller: FetchedResultsController<ManagedObject>) { calls += 1 }
        func controller(_ controller: FetchedResultsController<ManagedObject>, didChangeSection name: String, at index: Int, for type: FetchedResultsChangeType) { calls += 1 }
        func controller(_ controller: FetchedResultsController<ManagedObject>, didChange object: ManagedObject, at indexPath: FetchedIndexPath?,
                        for type: FetchedResultsChangeType, newIndexPath: FetchedIndexPath?) { calls += 1 }
        func controllerDidChangeContent(_ controller: FetchedResultsController<ManagedObject>) { calls += 1 }
    }
}

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
    /// The most positions one move wrote (a neighbourhood or the whole list renumbered).
    public var mostWrittenByOneMove: Int
    /// Wall time of the moves (with their saves), in seconds.
    public var elapsedSeconds: Double
    /// Each move's time on the context's queue, its save included, in nanoseconds, sorted.
    public var moveNanoseconds: [UInt64]
    /// Whether the controller equalled a fresh fetch afterwards.
    public var matchesFreshFetch: Bool

    /// The move time at quantile `q` (0…1) in microseconds.
    public func moveMicroseconds(at q: Double) -> Double {
        guard !moveNanoseconds.isEmpty else { return 0 }
        let i = min(moveNanoseconds.count - 1, Int((Double(moveNanoseconds.count - 1) * q).rounded()))
        return Double(moveNanoseconds[i]) / 1_000
    }
}

/// The `reorder` scenario: a list of N rows ordered by an integer position attribute (numbered
/// ``PositionRenumbering/spacing`` apart, as an app appending with
/// ``PositionRenumbering/position(after:)`` would), M seeded random manual moves, each inside
/// ``FetchedResultsController/performManualReorder(_:)`` with the spaced plan and a save.
///
/// Make it, then call ``move()`` once per move (each call is one block on the context's
/// queue, as a drag-and-drop would be), then ``finish()``; all on the context's queue.
///
/// For example:
/// ```swift
/// let benchmark = try context.performAndWait {
///     try ReorderBenchmark(context: context, entityName: "Row", positionKey: "position", rows: 1_000, seed: 42)
/// }
/// for _ in 0..<200 { try context.performAndWait { try benchmark.move() } }
/// let result = try context.performAndWait { try benchmark.finish() }
/// ```
public final class ReorderBenchmark: @unchecked Sendable {  // safe: every member is touched only on the context's queue
    private let context: ObjectContext
    private let positionKey: String
    private let request: FetchRequest<ManagedObject>
    private let controller: FetchedResultsController<ManagedObject>
    private let counter = CallCounter()
    private var generator: SplitMix64
    private var written = 0
    private var most = 0
    private var moves = 0
    private var nanoseconds: [UInt64] = []
    private var elapsed: UInt64 = 0

    /// Inserts `rows` objects of `entityName` (positions ``PositionRenumbering/spacing``
    /// apart, after any existing ones), saves, and fetches them into a controller. Call it on
    /// `context`'s queue.
    ///
    /// - Throws: Strata's errors (an unknown entity or key, a failed save).
    public init(context: ObjectContext, entityName: String, positionKey: String, rows: Int, seed: UInt64) throws {
        self.context = context
        self.positionKey = positionKey
        var request = FetchRequest<ManagedObject>(entityName: entityName, sortKeys: [SortKey(positionKey, ascending: false)])
        request.fetchLimit = 1
        var last: Int64? = nil
        if let top = try context.fetch(request).first, case .integer(let value) = top.primitiveValue(forKey: positionKey) { last = value }
        for _ in 0..<rows {
            let object = try context.insert(entityNamed: entityName)
            let position = PositionRenumbering.position(after: last)
            try object.setValue(position, forKey: positionKey)
            last = position
        }
        try context.save()
        request = FetchRequest<ManagedObject>(entityName: entityName, sortKeys: [SortKey(positionKey)])
        request.includesPendingChanges = true
        self.request = request
        controller = try FetchedResultsController(fetchRequest: request, context: context)
        controller.delegate = counter
        try controller.performFetch()
        generator = SplitMix64(seed: seed)
    }

    /// One seeded random move and its save, timed. Call it on the context's queue.
    ///
    /// - Throws: Strata's errors (a failed save).
    public func move() throws {
        let total = controller.sections[0].numberOfObjects
        guard total > 1 else { return }
        let source = Int(generator.next() % UInt64(total))
        let destination = Int(generator.next() % UInt64(total))
        let start = DispatchTime.now().uptimeNanoseconds
        try controller.performManualReorder {
            let count = try controller.moveObject(from: FetchedIndexPath(section: 0, row: source),
                                                  to: FetchedIndexPath(section: 0, row: destination), positionKey: positionKey)
            written += count
            most = max(most, count)
            try context.save()
        }
        let took = DispatchTime.now().uptimeNanoseconds - start
        nanoseconds.append(took)
        elapsed += took
        moves += 1
    }

    /// What the moves measured, and whether the controller equals a fresh fetch. Call it on
    /// the context's queue.
    ///
    /// - Throws: Strata's errors (a failed fetch).
    public func finish() throws -> ReorderBenchmarkResult {
        let fresh = try context.fetchObjectIDs(request)
        return ReorderBenchmarkResult(rows: controller.sections[0].numberOfObjects, moves: moves,
                                      delegateCallsDuringMoves: counter.calls, positionsWritten: written,
                                      mostWrittenByOneMove: most, elapsedSeconds: Double(elapsed) / 1e9,
                                      moveNanoseconds: nanoseconds.sorted(),
                                      matchesFreshFetch: fresh == controller.snapshot.itemIdentifiers)
    }

    /// Makes the benchmark and runs `moves` moves in one go on `context`'s queue.
    ///
    /// - Throws: Strata's errors (an unknown entity or key, a failed save).
    ///
    /// For example:
    /// ```swift
    /// let result = try context.performAndWait {
    ///     try ReorderBenchmark.run(context: context, entityName: "Row", positionKey: "position", rows: 1_000, moves: 200, seed: 42)
    /// }
    /// ```
    public static func run(context: ObjectContext, entityName: String, positionKey: String, rows: Int, moves: Int,
                           seed: UInt64) throws -> ReorderBenchmarkResult {
        let benchmark = try ReorderBenchmark(context: context, entityName: entityName, positionKey: positionKey, rows: rows, seed: seed)
        for _ in 0..<moves { try benchmark.move() }
        return try benchmark.finish()
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

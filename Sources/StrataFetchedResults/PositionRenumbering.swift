public import Strata

/// Plans the position writes of a manual move in a list ordered by an integer `position`
/// attribute, with as few writes as possible.
///
/// Moving a row first tries one write: the moved object takes a free integer between its new
/// neighbours (or one past the end). When the neighbours are adjacent integers, the cheaper of
/// two shifts is used: the run of adjacent positions after the destination moves up by one, or
/// the run before it moves down by one, until a gap (the moved object's old place is one);
/// then the moved object takes the freed value. So a move costs at most `|from − to| + 1`
/// writes and usually one — the fewest among renumberings that shift one contiguous run by one.
///
/// For example:
/// ```swift
/// let writes = PositionRenumbering.writes(movingFrom: 0, to: 2, positions: [0, 1, 2, 3])
/// // [Write(index: 0, position: 3), Write(index: 3, position: 4)]: the last row shifts up by one
/// ```
public enum PositionRenumbering {
    /// One position to write: the object at `index` of the list *before* the move gets `position`.
    public struct Write: Hashable, Sendable {
        /// The object's index in the list before the move.
        public var index: Int
        /// Its new position.
        public var position: Int64

        /// Creates a write.
        public init(index: Int, position: Int64) {
            self.index = index
            self.position = position
        }
    }

    /// The writes that move the row at `source` to `destination` (both indices in the list,
    /// `destination` as in the list after the move), given the list's positions in order.
    ///
    /// For example:
    /// ```swift
    /// PositionRenumbering.writes(movingFrom: 3, to: 0, positions: [10, 20, 30, 40])   // [Write(index: 3, position: 9)]
    /// ```
    public static func writes(movingFrom source: Int, to destination: Int, positions: [Int64]) -> [Write] {
        guard source != destination, positions.indices.contains(source), positions.indices.contains(destination) else { return [] }
        // The others, in order, with their original indices.
        var others = Array(positions.indices)
        others.remove(at: source)
        let q = others.map { positions[$0] }
        let d = destination
        if d == 0 { return [Write(index: source, position: q[0] - 1)] }
        if d == q.count { return [Write(index: source, position: q[q.count - 1] + 1)] }
        let previous = q[d - 1], next = q[d]
        if next - previous >= 2 { return [Write(index: source, position: previous + (next - previous) / 2)] }
        // Shift up: d...j move up by one, where j is the last before a gap (or the end).
        var j = d
        while j + 1 < q.count, q[j + 1] - q[j] < 2 { j += 1 }
        // Shift down: i...d-1 move down by one, where i is the first after a gap (or the start).
        var i = d - 1
        while i > 0, q[i] - q[i - 1] < 2 { i -= 1 }
        if j - d <= d - 1 - i {
            var writes = [Write(index: source, position: next)]
            for k in d...j { writes.append(Write(index: others[k], position: q[k] + 1)) }
            return writes
        }
        var writes = [Write(index: source, position: previous)]
        for k in i...(d - 1) { writes.append(Write(index: others[k], position: q[k] - 1)) }
        return writes
    }

    /// Moves `objects[source]` to `destination` by writing the integer attribute `positionKey`
    /// of as few objects as possible; `objects` must be in position order. Returns how many
    /// objects were written. Call it on the objects' context queue, typically inside
    /// ``FetchedResultsController/performManualReorder(_:)``.
    ///
    /// - Throws: Strata's error if `positionKey` is not an integer attribute.
    ///
    /// For example:
    /// ```swift
    /// try controller.performManualReorder {
    ///     _ = try PositionRenumbering.move(controller.fetchedObjects, from: 4, to: 1, positionKey: "position")
    ///     try context.save()
    /// }
    /// ```
    @discardableResult
    public static func move(_ objects: [ManagedObject], from source: Int, to destination: Int, positionKey: String) throws -> Int {
        let positions = objects.map { object -> Int64 in
            if case .integer(let value) = object.primitiveValue(forKey: positionKey) { return value }
            return 0
        }
        let writes = writes(movingFrom: source, to: destination, positions: positions)
        for write in writes { try objects[write.index].setValue(write.position, forKey: positionKey) }
        return writes.count
    }
}

extension FetchedResultsController {
    /// Runs `body` — where the app moves rows by hand and rewrites their positions, and may
    /// save — without reporting the resulting changes to the delegate: the UI already shows
    /// them. The controller still takes the changes in, so afterwards it equals a fresh fetch.
    /// Unsaved edits made in `body` are taken in by calling `context.processPendingChanges()`
    /// before it returns, and a later save of the same values is not reported either.
    ///
    /// For example:
    /// ```swift
    /// try controller.performManualReorder {
    ///     try PositionRenumbering.move(controller.sections[0].objects, from: 5, to: 0, positionKey: "position")
    ///     try context.save()
    /// }
    /// ```
    public func performManualReorder<Result>(_ body: () throws -> Result) rethrows -> Result {
        let wasReordering = isManuallyReordering
        isManuallyReordering = true
        defer {
            context.processPendingChanges()
            isManuallyReordering = wasReordering
        }
        return try body()
    }

    /// Moves the row at `source` to `destination` within one section by rewriting the integer
    /// attribute `positionKey` with the fewest writes, as a manual reorder (nothing reported).
    /// Returns the number of objects written.
    ///
    /// For example:
    /// ```swift
    /// try controller.moveObject(from: FetchedIndexPath(section: 0, row: 3), to: FetchedIndexPath(section: 0, row: 0), positionKey: "position")
    /// ```
    @discardableResult
    public func moveObject(from source: FetchedIndexPath, to destination: FetchedIndexPath, positionKey: String) throws -> Int {
        guard source.section == destination.section else { return 0 }
        let objects: [ManagedObject] = index.sections[source.section].entries.map(\.object)
        return try performManualReorder {
            try PositionRenumbering.move(objects, from: source.row, to: destination.row, positionKey: positionKey)
        }
    }
}

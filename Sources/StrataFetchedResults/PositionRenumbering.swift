public import Strata

/// Plans the position writes of a manual move in a list ordered by an integer `position`
/// attribute.
///
/// Two plans:
/// - ``spacedWrites(movingFrom:to:count:position:)`` (what ``move(_:from:to:positionKey:)`` and
///   ``FetchedResultsController/moveObject(from:to:positionKey:)`` use): positions leave room
///   between neighbours (``spacing``), a move takes the midpoint of its new neighbours — one
///   write — and a crowded neighbourhood is spread out when a gap runs out, so writes stay
///   O(1) per move in the common case and the list stays roomy.
/// - ``writes(movingFrom:to:positions:)``: the fewest writes for this one move when positions
///   are dense (0, 1, 2, …): shift the shorter run of adjacent positions by one. A dense list
///   stays dense, so later moves pay again (about a third of the list per random move).
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
    /// `destination` as in the list after the move), given the list's positions in order:
    /// one write when an integer is free between the new neighbours (or at either end),
    /// otherwise the cheaper of shifting the run of adjacent positions after the destination up
    /// by one or the run before it down by one, until a gap (the moved row's old place is one).
    /// At most `|from − to| + 1` writes; reads every position.
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
    /// with the spaced plan (``spacedWrites(movingFrom:to:count:position:)``: one write in the
    /// common case); `objects` must be in position order. Reads the positions of the rows the
    /// plan looks at only. Returns how many objects were written. Call it on the objects'
    /// context queue, typically inside ``FetchedResultsController/performManualReorder(_:)``.
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
        try apply(spacedWrites(movingFrom: source, to: destination, count: objects.count) { integer(objects[$0], positionKey) },
                  to: { objects[$0] }, positionKey: positionKey)
    }

    /// The integer value of `key` in `object` (0 when it is not an integer).
    static func integer(_ object: ManagedObject, _ key: String) -> Int64 {
        if case .integer(let value) = object.primitiveValue(forKey: key) { return value }
        return 0
    }

    /// Writes each planned position; returns how many.
    static func apply(_ writes: [Write], to object: (Int) -> ManagedObject, positionKey: String) throws -> Int {
        for write in writes { try object(write.index).setValue(write.position, forKey: positionKey) }
        return writes.count
    }
}

extension PositionRenumbering {
    /// The distance between the positions of neighbouring rows in a freshly numbered list:
    /// 2²⁰, so about twenty moves can land in the same gap (each takes the midpoint) before
    /// it runs out, and 8 · 10¹² rows fit in an `Int64`.
    ///
    /// For example:
    /// ```swift
    /// row.position = Int64(index) * PositionRenumbering.spacing
    /// ```
    public static let spacing: Int64 = 1 << 20

    /// The average gap a renumbered neighbourhood must keep between its rows; a window too
    /// crowded for it grows (doubling) until it is not.
    ///
    /// For example:
    /// ```swift
    /// precondition(PositionRenumbering.neighbourhoodGap < PositionRenumbering.spacing)
    /// ```
    public static let neighbourhoodGap: Int64 = 64

    /// The position for a row appended after `last` (the list's last position, nil for an
    /// empty list): `last + spacing`, or 0.
    ///
    /// For example:
    /// ```swift
    /// let last = controller.fetchedObjects.last?.position
    /// newRow.position = PositionRenumbering.position(after: last)
    /// ```
    public static func position(after last: Int64?) -> Int64 {
        guard let last else { return 0 }
        let (next, overflow) = last.addingReportingOverflow(spacing)
        return overflow ? Int64.max : next
    }

    /// The writes that move the row at `source` to `destination` in a list whose positions
    /// leave room between neighbours (see ``spacing``). `position(i)` gives the position of the
    /// row at index `i` of the list before the move and is called only for the rows the plan
    /// looks at, so a move reads O(1) rows in the common case, not the whole list.
    ///
    /// - One write when there is room: the midpoint between the new neighbours, or one
    ///   ``spacing`` past either end.
    /// - Otherwise a neighbourhood around the destination, doubled until its rows can be spread
    ///   at least ``neighbourhoodGap`` apart between its outer neighbours (or outward from an
    ///   end of the list), is renumbered evenly: O(crowded rows) writes, amortised
    ///   O(log n) per move.
    /// - Only when that neighbourhood would be more than half the list (a list numbered
    ///   0, 1, 2, …, say), the whole list is renumbered ``spacing`` apart, once.
    ///
    /// Rows whose position does not change are not written. Positions stay distinct and give
    /// the order of the list after the move.
    ///
    /// For example:
    /// ```swift
    /// let positions: [Int64] = [0, 1 << 20, 2 << 20, 3 << 20]
    /// PositionRenumbering.spacedWrites(movingFrom: 3, to: 1, count: 4) { positions[$0] }
    /// // [Write(index: 3, position: 524288)]: one write, the midpoint of 0 and 1 << 20
    /// ```
    public static func spacedWrites(movingFrom source: Int, to destination: Int, count: Int,
                                    position: (Int) -> Int64) -> [Write] {
        guard source != destination, (0..<count).contains(source), (0..<count).contains(destination) else { return [] }
        return withoutActuallyEscaping(position) { position in
            let plan = SpacedPlan(source: source, destination: destination, count: count, position: position)
            return plan.oneWrite() ?? plan.neighbourhood() ?? plan.wholeList()
        }
    }
}

/// One move's plan over the list without the moved row (`others`, indexed 0..<count − 1).
private struct SpacedPlan {
    let source: Int
    let destination: Int
    let count: Int
    let position: (Int) -> Int64

    init(source: Int, destination: Int, count: Int, position: @escaping (Int) -> Int64) {
        self.source = source
        self.destination = destination
        self.count = count
        self.position = position
    }

    /// Rows of the list without the moved one.
    var others: Int { count - 1 }
    /// The index (in the list before the move) of row `k` of the others.
    func original(_ k: Int) -> Int { k < source ? k : k + 1 }
    /// The position of row `k` of the others.
    func q(_ k: Int) -> Int64 { position(original(k)) }

    func oneWrite() -> [PositionRenumbering.Write]? {
        let d = destination, step = PositionRenumbering.spacing
        if d == 0 {
            let (value, overflow) = q(0).subtractingReportingOverflow(step)
            return overflow ? nil : [.init(index: source, position: value)]
        }
        if d == others {
            let (value, overflow) = q(others - 1).addingReportingOverflow(step)
            return overflow ? nil : [.init(index: source, position: value)]
        }
        let previous = q(d - 1), next = q(d)
        let (gap, overflow) = next.subtractingReportingOverflow(previous)
        if overflow { return [.init(index: source, position: previous / 2 + next / 2)] }   // far apart: room
        guard gap >= 2 else { return nil }
        return [.init(index: source, position: previous + gap / 2)]
    }

    /// Spreads a window of others `low..<high` plus the moved row, doubling the window until
    /// it fits; nil when the window would pass half the list.
    func neighbourhood() -> [PositionRenumbering.Write]? {
        var radius = 1
        while true {
            let low = max(0, destination - radius), high = min(others, destination + radius)
            if 2 * (high - low) > others || (low == 0 && high == others) { return nil }
            let placed = high - low + 1
            if let values = spread(placed, below: low > 0 ? q(low - 1) : nil, above: high < others ? q(high) : nil) {
                return writes(low: low, high: high, values: values)
            }
            radius *= 2
        }
    }

    /// `placed` increasing positions strictly between `lower` and `upper` (an open side when
    /// nil), at least ``PositionRenumbering/neighbourhoodGap`` apart; nil when they do not fit.
    func spread(_ placed: Int, below lower: Int64?, above upper: Int64?) -> [Int64]? {
        let n = Int64(placed)
        switch (lower, upper) {
        case let (lower?, upper?):
            let gap = upper / (n + 1) - lower / (n + 1) - 1
            guard gap >= PositionRenumbering.neighbourhoodGap else { return nil }
            return Self.arithmetic(from: lower, step: gap, count: placed)
        case let (lower?, nil):
            return Self.arithmetic(from: lower, step: PositionRenumbering.spacing, count: placed)
        case let (nil, upper?):
            let (start, overflow) = PositionRenumbering.spacing.multipliedReportingOverflow(by: n + 1)
            guard !overflow else { return nil }
            let (first, under) = upper.subtractingReportingOverflow(start)
            return under ? nil : Self.arithmetic(from: first, step: PositionRenumbering.spacing, count: placed)
        case (nil, nil):
            return nil
        }
    }

    /// `from + step · 1 … from + step · count`, or nil on overflow.
    static func arithmetic(from base: Int64, step: Int64, count: Int) -> [Int64]? {
        var values: [Int64] = []
        values.reserveCapacity(count)
        var value = base
        for _ in 0..<count {
            let (next, overflow) = value.addingReportingOverflow(step)
            if overflow { return nil }
            value = next
            values.append(value)
        }
        return values
    }

    /// The writes giving others `low..<high` and the moved row (at `destination`) `values` in
    /// order, skipping rows already there.
    func writes(low: Int, high: Int, values: [Int64]) -> [PositionRenumbering.Write] {
        var writes: [PositionRenumbering.Write] = []
        for (offset, value) in values.enumerated() {
            let slot = low + offset
            let index = slot < destination ? original(slot) : (slot == destination ? source : original(slot - 1))
            if index == source || position(index) != value { writes.append(.init(index: index, position: value)) }
        }
        return writes
    }

    /// Every row `spacing` apart from 0 (closer when the list is too long for that), in the
    /// order after the move.
    func wholeList() -> [PositionRenumbering.Write] {
        let step = max(1, min(PositionRenumbering.spacing, Int64.max / Int64(count + 1)))
        var writes: [PositionRenumbering.Write] = []
        for slot in 0..<count {
            let index = slot < destination ? original(slot) : (slot == destination ? source : original(slot - 1))
            let value = Int64(slot) * step
            if index == source || position(index) != value { writes.append(.init(index: index, position: value)) }
        }
        return writes
    }
}

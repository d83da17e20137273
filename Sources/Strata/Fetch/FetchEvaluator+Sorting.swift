extension FetchEvaluator {
    /// Sorts `items` as a fetch orders them, by the sort values and ID each one has; returns
    /// how many comparisons it made.
    ///
    /// Under one integer sort key (a position, an index: the common list order) the items
    /// sort by plain integers, without the general comparison's per-value work.
    ///
    /// For example:
    /// ```swift
    /// var placed = ids.map { (id: $0, values: evaluator.sortValues(of: context.object(with: $0))) }
    /// evaluator.sort(&placed, values: \.values, id: \.id)
    /// ```
    @discardableResult
    public func sort<Item>(_ items: inout [Item], values: (Item) -> [PropertyValue], id: (Item) -> ObjectID) -> Int {
        guard items.count > 1 else { return 0 }
        let (order, comparisons) = sortedOrder(values: items.map(values), ids: items.map(id))
        items = order.map { items[$0] }
        return comparisons
    }

    /// The order a fetch puts items in, given each one's sort values and ID (`values[i]` and
    /// `ids[i]` describe item `i`): the items' positions, first first; and how many
    /// comparisons it made. Not generic, so a caller in another module runs it at full speed.
    ///
    /// For example:
    /// ```swift
    /// let (order, _) = evaluator.sortedOrder(values: rows.map(\.values), ids: rows.map(\.id))
    /// let sorted = order.map { rows[$0] }
    /// ```
    public func sortedOrder(values: [[PropertyValue]], ids: [ObjectID]) -> (order: [Int], comparisons: Int) {
        precondition(values.count == ids.count, "one ID per item's values")   // programmer error
        guard values.count > 1 else { return (Array(values.indices), 0) }
        var comparisons = 0
        if plan.sortKeys.count == 1, let keys = Self.integerKeys(values, ids) {
            let ascending = plan.sortKeys[0].ascending
            let sorted = keys.sorted { a, b in
                comparisons += 1
                if a.value != b.value { return ascending ? a.value < b.value : a.value > b.value }
                if a.isTemporary != b.isTemporary { return !a.isTemporary }   // as compareIDs orders them
                return a.key < b.key
            }
            return (sorted.map(\.position), comparisons)
        }
        let order = values.indices.sorted { a, b in
            comparisons += 1
            return compare(values[a], ids[a], values[b], ids[b]) < 0
        }
        return (order, comparisons)
    }

    /// Each item's single sort value, ID and position, when every value is an integer.
    private static func integerKeys(_ values: [[PropertyValue]], _ ids: [ObjectID])
        -> [(value: Int64, isTemporary: Bool, key: Int64, position: Int)]? {
        var keys: [(value: Int64, isTemporary: Bool, key: Int64, position: Int)] = []
        keys.reserveCapacity(values.count)
        for position in values.indices {
            guard case .integer(let value)? = values[position].first else { return nil }
            let objectID = ids[position]
            keys.append((value, objectID.isTemporary, objectID.key, position))
        }
        return keys
    }
}

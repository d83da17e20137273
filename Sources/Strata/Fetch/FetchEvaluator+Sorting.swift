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
        var comparisons = 0
        if plan.sortKeys.count == 1, let keys = Self.integerKeys(items, values: values, id: id) {
            let ascending = plan.sortKeys[0].ascending
            let order = keys.sorted { a, b in
                comparisons += 1
                if a.value != b.value { return ascending ? a.value < b.value : a.value > b.value }
                if a.isTemporary != b.isTemporary { return !a.isTemporary }   // as compareIDs orders them
                return a.key < b.key
            }
            items = order.map { items[$0.position] }
            return comparisons
        }
        items.sort { a, b in
            comparisons += 1
            return compare(values(a), id(a), values(b), id(b)) < 0
        }
        return comparisons
    }

    /// Each item's single sort value, ID and position, when every value is an integer.
    private static func integerKeys<Item>(_ items: [Item], values: (Item) -> [PropertyValue], id: (Item) -> ObjectID)
        -> [(value: Int64, isTemporary: Bool, key: Int64, position: Int)]? {
        var keys: [(value: Int64, isTemporary: Bool, key: Int64, position: Int)] = []
        keys.reserveCapacity(items.count)
        for (position, item) in items.enumerated() {
            guard case .integer(let value)? = values(item).first else { return nil }
            let objectID = id(item)
            keys.append((value, objectID.isTemporary, objectID.key, position))
        }
        return keys
    }
}

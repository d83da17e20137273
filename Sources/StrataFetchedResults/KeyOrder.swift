import Strata

/// Puts the objects a batch touched in primary-key order when that costs one pass, so that the
/// batch's sorts — placing new rows, ordering its report — find their input already in order.
///
/// A change set lists its objects in no order (sets and dictionaries), but SQLite gives a
/// save's new rows consecutive keys in the order they were inserted: an import that inserts
/// a list's rows in its sort order, then updates them, hands the controller batches whose key
/// order is the list's order. Swift's sort finds a run already in order in one pass, so the
/// batch's two sorts cost n comparisons instead of n · log n.
///
/// For example (inside the controller):
/// ```swift
/// let ids = KeyOrder.ordered(Array(touched)) { $0 }   // IDs 7, 5, 6 → 5, 6, 7
/// ```
enum KeyOrder {
    /// `items` sorted by their IDs' primary keys when the IDs are all permanent, of one entity,
    /// distinct, and their keys span at most four times their number (one pass to find the
    /// span, one to drop each item in its key's slot, one over the slots); otherwise as they are.
    static func ordered<Item>(_ items: [Item], by id: (Item) -> ObjectID) -> [Item] {
        guard items.count > 1 else { return items }
        let entity = id(items[0]).entity
        var low = Int64.max, high = Int64.min
        for item in items {
            let itemID = id(item)
            guard itemID.entity === entity, let key = itemID.primaryKey else { return items }
            if key < low { low = key }
            if key > high { high = key }
        }
        let (span, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, span < Int64(items.count) * 4 else { return items }
        var slots = [Int](repeating: -1, count: Int(span) + 1)
        for (position, item) in items.enumerated() {
            guard let key = id(item).primaryKey else { return items }
            let slot = Int(key - low)
            guard slots[slot] < 0 else { return items }   // the same ID twice: left as it is
            slots[slot] = position
        }
        var ordered: [Item] = []
        ordered.reserveCapacity(items.count)
        for position in slots where position >= 0 { ordered.append(items[position]) }
        return ordered
    }
}

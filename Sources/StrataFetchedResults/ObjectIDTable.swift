import Strata

/// A map from object IDs to values that can grow to hundreds of thousands of entries without
/// ever rehashing them all at once.
///
/// Entries start in a dictionary. Once an entity holds 1 024 saved objects whose primary keys
/// are dense (SQLite hands them out in order from 1: at least one key in four of their range
/// used), its saved objects move, once, to pages of 1 024 slots found by the key itself: from
/// then on a new one costs at most a new page and a lookup no hashing. A page is freed when it
/// empties. Temporary IDs, sparse entities (a filtered list over a large table: pages would
/// mostly hold nothing) and very large keys stay in the dictionary.
///
/// A controller following an import holds one entry per row. In a dictionary, each doubling
/// moved every entry at once: at 100 000 rows one merge held the main queue for about 30 ms.
///
/// For example (inside the controller):
/// ```swift
/// var members = ObjectIDTable<ResultsMember>()
/// members[id] = ResultsMember(object: object, indexedID: id, values: values)
/// let held = members[id]?.object
/// ```
struct ObjectIDTable<Value> {
    /// What the table knows of one entity's saved objects.
    private struct EntityState {
        /// Whether its saved objects (keys in the paged range) live in `pages`.
        var isPaged = false
        /// While not paged: how many of its saved objects are in the dictionary, and the range
        /// of their keys (never narrowed: it only decides when to page).
        var unpagedCount = 0
        var lowestKey = Int64.max
        var highestKey = Int64.min
        /// While paged: slot `key % pageSize` of page `key / pageSize`; a page not in use is
        /// empty. `pageCounts[p]` is how many slots of page `p` hold a value.
        var pages: [[Value?]] = []
        var pageCounts: [Int] = []
        /// The entity, to rebuild IDs when iterating (set with its first saved object).
        var entity: EntityDescription?
    }

    private static var pageSize: Int { 1_024 }
    /// Keys from this one up stay in the dictionary, so a stray huge key cannot make the page
    /// list huge (65 536 pages at most: half a megabyte of page references).
    private static var pagedKeyLimit: Int64 { 1 << 26 }
    /// How many saved objects of an entity the dictionary holds before the table considers
    /// paging them.
    private static var pagingThreshold: Int { 1_024 }

    /// By entity position in the model (`EntityDescription.index`, as IDs compare).
    private var entities: [EntityState] = []
    /// Temporary IDs, saved objects of entities not paged, and keys past the paged range.
    private var others: [ObjectID: Value] = [:]
    /// How many entries the table holds.
    private(set) var count = 0
    /// How many of them are held under temporary IDs (all in `others`: only saved objects page).
    private var temporaryCount = 0

    init() {}

    /// The value stored for `id`, if any; setting `nil` removes it.
    subscript(id: ObjectID) -> Value? {
        _read {   // (yields the stored value in place: a caller reading one field copies only that)
            if let (e, page, slot) = pagedPlace(of: id) {
                if page < entities[e].pages.count, !entities[e].pages[page].isEmpty {
                    yield entities[e].pages[page][slot]
                } else {
                    yield nil
                }
            } else {
                yield others[id]
            }
        }
        set {
            if let (e, page, slot) = pagedPlace(of: id) {
                setPaged(newValue, entity: e, page: page, slot: slot)
            } else {
                setUnpaged(newValue, for: id)
            }
        }
    }

    /// Removes the value for `id` and returns it.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> Value? {
        if let (e, page, slot) = pagedPlace(of: id) { return setPaged(nil, entity: e, page: page, slot: slot) }
        return setUnpaged(nil, for: id)
    }

    /// The temporary IDs the table holds values for.
    var temporaryKeys: [ObjectID] { others.keys.filter(\.isTemporary) }

    /// Whether any entry is held under a temporary ID.
    var hasTemporaryKeys: Bool { temporaryCount > 0 }

    /// How many pages hold values (for tests and measurements: memory in use beyond the
    /// dictionary is about this many × 1 024 slots).
    var pagesInUse: Int { entities.reduce(0) { $0 + $1.pages.filter { !$0.isEmpty }.count } }

    /// Calls `body` with every ID and value (paged objects by entity and key, then the rest).
    func forEach(_ body: (ObjectID, Value) throws -> Void) rethrows {
        for state in entities where state.isPaged {
            guard let entity = state.entity else { continue }
            for (page, values) in state.pages.enumerated() where !values.isEmpty {
                for (slot, value) in values.enumerated() {
                    guard let value else { continue }
                    try body(ObjectID(entity: entity, primaryKey: Int64(page * Self.pageSize + slot)), value)
                }
            }
        }
        for (id, value) in others { try body(id, value) }
    }

    /// The key of a saved object, if it is one the table could page.
    private static func pagedKey(of id: ObjectID) -> Int? {
        guard id.entity.index >= 0, let key = id.primaryKey, key >= 0, key < pagedKeyLimit else { return nil }
        return Int(key)
    }

    /// Where `id` lives when its entity is paged; `nil` when it lives in the dictionary.
    private func pagedPlace(of id: ObjectID) -> (entity: Int, page: Int, slot: Int)? {
        guard let key = Self.pagedKey(of: id) else { return nil }
        let e = id.entity.index
        guard e < entities.count, entities[e].isPaged else { return nil }
        return (e, key / Self.pageSize, key % Self.pageSize)
    }

    /// Stores `newValue` (`nil`: removes) in a paged entity's slot; answers the value it replaced.
    @discardableResult
    private mutating func setPaged(_ newValue: Value?, entity e: Int, page: Int, slot: Int) -> Value? {
        if page >= entities[e].pages.count {
            guard newValue != nil else { return nil }
            let missing = page + 1 - entities[e].pages.count
            entities[e].pages.append(contentsOf: repeatElement([], count: missing))
            entities[e].pageCounts.append(contentsOf: repeatElement(0, count: missing))
        }
        if entities[e].pages[page].isEmpty {
            guard newValue != nil else { return nil }
            entities[e].pages[page] = Array(repeating: nil, count: Self.pageSize)
        }
        let old = entities[e].pages[page][slot]
        entities[e].pages[page][slot] = newValue
        guard (old != nil) != (newValue != nil) else { return old }
        let change = newValue != nil ? 1 : -1
        count += change
        entities[e].pageCounts[page] += change
        if entities[e].pageCounts[page] == 0 { entities[e].pages[page] = [] }   // freed when it empties
        return old
    }

    /// Stores `newValue` (`nil`: removes) in the dictionary, paging the entity once its keys
    /// are dense; answers the value it replaced.
    @discardableResult
    private mutating func setUnpaged(_ newValue: Value?, for id: ObjectID) -> Value? {
        let old = if let newValue { others.updateValue(newValue, forKey: id) } else { others.removeValue(forKey: id) }
        guard (old != nil) != (newValue != nil) else { return old }
        count += newValue != nil ? 1 : -1
        if id.isTemporary { temporaryCount += newValue != nil ? 1 : -1 }
        guard let key = Self.pagedKey(of: id) else { return old }
        let e = id.entity.index
        if e >= entities.count {
            entities.append(contentsOf: repeatElement(EntityState(), count: e + 1 - entities.count))
        }
        entities[e].entity = id.entity
        entities[e].unpagedCount += newValue != nil ? 1 : -1
        guard newValue != nil else { return old }
        entities[e].lowestKey = min(entities[e].lowestKey, Int64(key))
        entities[e].highestKey = max(entities[e].highestKey, Int64(key))
        let state = entities[e]
        if state.unpagedCount >= Self.pagingThreshold, Int64(state.unpagedCount) * 4 >= state.highestKey - state.lowestKey + 1 {
            page(entity: e)
        }
        return old
    }

    /// Moves entity `e`'s saved objects from the dictionary into pages (once: dense keys).
    private mutating func page(entity e: Int) {
        let moving = others.filter { id, _ in id.entity.index == e && Self.pagedKey(of: id) != nil }
        for id in moving.keys { others[id] = nil }
        count -= moving.count
        entities[e].isPaged = true
        entities[e].unpagedCount = 0
        for (id, value) in moving { self[id] = value }
    }
}

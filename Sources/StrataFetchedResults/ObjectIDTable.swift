import Strata

/// A map from object IDs to values that grows without ever rehashing what it holds: saved
/// objects (permanent IDs, whose primary keys SQLite hands out in order from 1) live in pages of
/// 1 024 slots per entity, found by the key itself; temporary IDs and very large keys live in a
/// dictionary beside them.
///
/// A controller following an import holds one entry per row. In a dictionary, each doubling
/// moved every entry at once: at 100 000 rows one insert stalled the main queue for about
/// 30 ms. Here a new row costs at most one new page, and a lookup no hashing.
///
/// For example (inside the controller):
/// ```swift
/// var members = ObjectIDTable<ResultsMember>()
/// members[id] = ResultsMember(object: object, indexedID: id, values: values)
/// let held = members[id]?.object
/// ```
struct ObjectIDTable<Value> {
    /// The pages of one entity's saved objects: slot `key % pageSize` of page `key / pageSize`;
    /// a page not yet needed is empty.
    private struct EntityPages {
        let entity: EntityDescription
        var pages: [[Value?]] = []
    }

    private static var pageSize: Int { 1_024 }
    /// Keys from this one up go to the dictionary, so a stray huge key cannot make the page
    /// list huge (65 536 pages at most: half a megabyte of page references).
    private static var pagedKeyLimit: Int64 { 1 << 26 }

    /// One per entity seen, found by identity: a controller's request names one entity and
    /// perhaps a few subentities.
    private var entities: [EntityPages] = []
    /// Temporary IDs, and permanent ones with keys past the paged range.
    private var others: [ObjectID: Value] = [:]
    /// How many entries the table holds.
    private(set) var count = 0

    init() {}

    /// The value stored for `id`, if any; setting `nil` removes it.
    subscript(id: ObjectID) -> Value? {
        get {
            guard let (page, slot) = Self.place(of: id) else { return others[id] }
            guard let e = entities.firstIndex(where: { $0.entity === id.entity }), page < entities[e].pages.count,
                  !entities[e].pages[page].isEmpty else { return nil }
            return entities[e].pages[page][slot]
        }
        set {
            guard let (page, slot) = Self.place(of: id) else {
                let hadValue: Bool
                if let newValue { hadValue = others.updateValue(newValue, forKey: id) != nil } else { hadValue = others.removeValue(forKey: id) != nil }
                count(replacing: hadValue, with: newValue != nil)
                return
            }
            guard let e = pagesIndex(for: id.entity, creating: newValue != nil) else { return }
            if page >= entities[e].pages.count {
                guard newValue != nil else { return }
                entities[e].pages.append(contentsOf: repeatElement([], count: page + 1 - entities[e].pages.count))
            }
            if entities[e].pages[page].isEmpty {
                guard newValue != nil else { return }
                entities[e].pages[page] = Array(repeating: nil, count: Self.pageSize)
            }
            let hadValue = entities[e].pages[page][slot] != nil
            entities[e].pages[page][slot] = newValue
            count(replacing: hadValue, with: newValue != nil)
        }
    }

    /// Removes the value for `id` and returns it.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> Value? {
        let old = self[id]
        if old != nil { self[id] = nil }
        return old
    }

    /// The temporary IDs the table holds values for.
    var temporaryKeys: [ObjectID] { others.keys.filter(\.isTemporary) }

    /// Whether any entry is held under a temporary ID.
    var hasTemporaryKeys: Bool { others.keys.contains { $0.isTemporary } }

    /// Calls `body` with every ID and value (saved objects by entity and key, then the rest).
    func forEach(_ body: (ObjectID, Value) throws -> Void) rethrows {
        for entity in entities {
            for (page, values) in entity.pages.enumerated() where !values.isEmpty {
                for (slot, value) in values.enumerated() {
                    guard let value else { continue }
                    try body(ObjectID(entity: entity.entity, primaryKey: Int64(page * Self.pageSize + slot)), value)
                }
            }
        }
        for (id, value) in others { try body(id, value) }
    }

    /// The page and slot of a permanent ID with a key in the paged range; `nil` for the others.
    private static func place(of id: ObjectID) -> (page: Int, slot: Int)? {
        guard let key = id.primaryKey, key >= 0, key < pagedKeyLimit else { return nil }
        let k = Int(key)
        return (k / pageSize, k % pageSize)
    }

    private mutating func pagesIndex(for entity: EntityDescription, creating: Bool) -> Int? {
        if let e = entities.firstIndex(where: { $0.entity === entity }) { return e }
        guard creating else { return nil }
        entities.append(EntityPages(entity: entity))
        return entities.count - 1
    }

    private mutating func count(replacing hadValue: Bool, with hasValue: Bool) {
        if hadValue != hasValue { count += hasValue ? 1 : -1 }
    }
}

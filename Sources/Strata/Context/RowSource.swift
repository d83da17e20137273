import Foundation

/// Where a context reads what it does not hold: its parent (which answers from its own
/// objects, unsaved changes included, or from its own source) or, for a root, the store.
/// A child asks its parent synchronously on the parent's queue, as Core Data does; when no
/// ancestor may hold unsaved changes of the entities involved, it reads the store directly,
/// since the store then holds the same data.
///
/// A part of ``ObjectContext``.
///
/// For example (inside the engine):
/// ```swift
/// let rows = try source.rows(of: entity, ids: faults.map(\.objectID), staleness: stalenessInterval)
/// ```
struct RowSource: Sendable {
    /// The context read through, for a child; `nil` for a root.
    let parent: ObjectContext?
    /// The store's coordinator.
    let coordinator: StoreCoordinator

    /// The rows of `ids` as the layer below holds them. IDs with no row are absent. Rows from
    /// the store may come from its row cache when read at most `staleness` seconds ago
    /// (negative: any age; 0: read the store).
    func rows(of entity: EntityDescription, ids: [ObjectID], staleness: TimeInterval) throws(StrataError) -> [RowSnapshot] {
        if let parent, ids.contains(where: \.isTemporary) || ancestorsMayHavePending(entity) {
            return try parent.syncOnQueue { () throws(StrataError) -> [RowSnapshot] in try parent.snapshots(of: entity, ids: ids, staleness: staleness) }
        }
        let keys = ids.compactMap(\.primaryKey)
        return keys.isEmpty ? [] : try coordinator.readRows(of: entity, keys: keys, staleness: staleness)
    }

    /// The destinations of relationship `index` of each of `ids`, as the layer below holds them.
    func related(of entity: EntityDescription, relationship index: Int, ids: [ObjectID]) throws(StrataError) -> [ObjectID: [ObjectID]] {
        let destination = coordinator.model.entities[entity.relationships[index].destinationIndex]
        if let parent, ids.contains(where: \.isTemporary) || ancestorsMayHavePending(entity, destination) {
            return try parent.syncOnQueue { () throws(StrataError) -> [ObjectID: [ObjectID]] in try parent.related(of: entity, relationship: index, ids: ids) }
        }
        let keys = ids.compactMap(\.primaryKey)
        guard !keys.isEmpty else { return [:] }
        var result: [ObjectID: [ObjectID]] = [:]
        // The IDs asked for name their own entities (objects of a hierarchy may be of several).
        let asked = Dictionary(ids.compactMap { id in id.primaryKey.map { ($0, id) } }, uniquingKeysWith: { a, _ in a })
        for pair in try coordinator.readRelatedKeys(of: entity, relationship: index, keys: keys) {
            result[asked[pair.source] ?? ObjectID(entity: entity, key: pair.source), default: []].append(ObjectID(entity: pair.targetEntity ?? destination, key: pair.target))
        }
        return result
    }

    /// The IDs a request matches below (a child's parent includes its own unsaved changes
    /// when the request does).
    func objectIDs<T>(_ request: FetchRequest<T>) throws(StrataError) -> [ObjectID] {
        guard let parent else { throw StrataError(.invalidRequest, "A root context reads IDs from the store directly.") }
        return try parent.syncOnQueue { () throws(StrataError) -> [ObjectID] in try parent.fetchObjectIDs(request) }
    }

    /// Whether reads must go through the parent: some ancestor may hold unsaved changes of
    /// any entity (a predicate or sort key can reach any of them).
    var readsThroughParent: Bool {
        ancestorsPendingBits() != 0
    }

    /// Whether some ancestor may hold unsaved changes of `entity` (or of `other`).
    func ancestorsMayHavePending(_ entity: EntityDescription, _ other: EntityDescription? = nil) -> Bool {
        let bits = ObjectContext.pendingBit(entity) | (other.map(ObjectContext.pendingBit) ?? 0)
        return ancestorsPendingBits() & bits != 0
    }

    /// The entities some ancestor may hold unsaved changes of, as
    /// ``ObjectContext/pendingBit(_:)`` bits (all of them while a push waits on an ancestor's
    /// queue): asked once before a loop over many objects rather than once an object.
    func ancestorsPendingBits() -> UInt64 {
        var bits: UInt64 = 0
        var ancestor = parent
        while let current = ancestor, bits != .max {
            bits |= current.pendingBits()
            ancestor = current.parent
        }
        return bits
    }
}

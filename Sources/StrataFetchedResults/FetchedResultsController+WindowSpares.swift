import Strata

extension FetchedResultsController {
    /// Whether the request keeps spare rows past its window (``spares``): an unsectioned
    /// `fetchLimit` window without an offset or a text search, the windows that take change
    /// sets in from memory.
    var keepsSpares: Bool {
        fetchRequest.fetchLimit > 0 && fetchRequest.fetchOffset == 0 && sectionKeyPath == nil && fetchRequest.textSearch == nil
    }

    /// How many spare rows a window of `fetchRequest.fetchLimit` rows keeps: a quarter of it,
    /// at least 4 and at most 64. A row leaving the window is replaced by the first spare
    /// without a fetch; the window is fetched again only when more rows leave than the spares
    /// hold (moves, deletes and predicate changes inside it, net of rows coming in).
    var spareCount: Int { keepsSpares ? min(64, max(4, fetchRequest.fetchLimit / 4)) : 0 }

    /// Spare entries for `objects`, the matching objects right after the window in order, with
    /// the IDs and values they are sorted by (re-keyed like results when a save makes a
    /// temporary ID permanent: ``rekeySpares(_:touched:)``).
    func makeSpares(_ objects: some Sequence<ManagedObject>) -> [ResultsIndex.Entry] {
        objects.map { ResultsIndex.Entry(object: $0, id: $0.objectID, values: index.currentValues(of: $0)) }
    }

    /// Re-keys spares held under a temporary ID that is now permanent — told by the change set,
    /// or applied by the context for an ancestor's save — and adds them to `touched`, so they
    /// are placed again with the new ID (the tie-break). O(spares).
    func rekeySpares(_ permanentIDs: [ObjectID: ObjectID], touched: inout Set<ObjectID>) {
        for row in spares.indices where spares[row].id.isTemporary {
            let current = permanentIDs[spares[row].id] ?? spares[row].object?.objectID ?? spares[row].id
            guard !current.isTemporary else { continue }
            spares[row].id = current
            touched.insert(current)
        }
    }

    /// Whether `object` is one of the spares (by identity: under whatever ID).
    func isSpare(_ object: ManagedObject) -> Bool { spares.contains { $0.object === object } }
}

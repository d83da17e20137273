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
    /// the values they are sorted by. Stops at the first object with a temporary ID (only the
    /// window's results are re-keyed when a save makes IDs permanent): leaving later ones out is
    /// always safe, as every object outside sorts after the last spare.
    func makeSpares(_ objects: some Sequence<ManagedObject>) -> [ResultsIndex.Entry] {
        var spares: [ResultsIndex.Entry] = []
        for object in objects {
            let id = object.objectID
            guard !id.isTemporary else { break }
            spares.append(ResultsIndex.Entry(object: object, id: id, values: index.currentValues(of: object)))
        }
        return spares
    }

}

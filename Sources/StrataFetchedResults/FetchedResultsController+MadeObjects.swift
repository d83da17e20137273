import Strata

extension FetchedResultsController {
    /// The objects of `entries` in order, making the ones placed without an object (a merged
    /// save's rows) in one call: faults grouped so that reading one reads them together. The
    /// made objects are kept with their results (``members``), so a later report of a result
    /// hands over the same object.
    ///
    /// For example (inside the controller):
    /// ```swift
    /// let shown = objects(of: index.sections[0].entries)
    /// ```
    func objects(of entries: [ResultsIndex.Entry]) -> [ManagedObject] {
        let missing = entries.indices.filter { entries[$0].object == nil }
        guard !missing.isEmpty else { return entries.compactMap(\.object) }
        var objects = entries.map(\.object)
        for (i, object) in zip(missing, makeObjects(missing.map { entries[$0].id })) { objects[i] = object }
        return objects.compactMap { $0 }
    }

    /// Makes the objects of results placed without one, by their IDs, in one call (grouped
    /// faults), and keeps each with its result.
    func makeObjects(_ ids: [ObjectID]) -> [ManagedObject] {
        let objects = context.objects(with: ids)
        for (id, object) in zip(ids, objects) where members[id] != nil && members[id]?.object == nil {
            members[id]?.object = object
        }
        return objects
    }

    /// The object of the result at `row` of `section`: made now for a result placed from a
    /// merged save's values, together with the next rows' that have none (up to
    /// ``ResultsIndex/objectPage``: about a screen of a list), and kept from then on.
    func object(at row: Int, in section: ResultsIndex.Section) -> ManagedObject {
        if let object = section.entries[row].object { return object }
        let rows = (row ..< min(section.entries.count, row + ResultsIndex.objectPage)).filter { section.entries[$0].object == nil }
        let objects = makeObjects(rows.map { section.entries[$0].id })
        for (r, object) in zip(rows, objects) { section.entries[r].object = object }
        return objects[0]
    }
}

import Strata

/// The last result of a full `fetchLimit` window, worked out at most once per change set:
/// every object outside the window sorts after it or does not match.
enum WindowBoundary {
    case unknown
    case none
    case last(values: [PropertyValue], id: ObjectID, sortKeys: [String])
}

extension FetchedResultsController {
    /// Whether an object outside a full `fetchLimit` window and its ``spares``, updated with
    /// `changed`, certainly stays outside: its sort values after the change sort after the
    /// window's last result, so whether it matches does not matter and nothing needs reading.
    /// Its sort values are the object's own when the context holds it filled (unsaved edits
    /// included, as a fetch with pending changes sees them), else the change set's new values,
    /// when it names every sort key. One sorting before the last spare is taken in from memory
    /// when it is held filled (false); otherwise the spares from it on are let go. False when
    /// that cannot be known (a sort key through a relationship, a window with an offset,
    /// sections, or not full): the caller then treats the object as one that may come in.
    /// O(sort keys + spares), no read: a reorder far below a list's first screen costs it nothing.
    func staysBelowWindow(_ id: ObjectID, changed: [String: PropertyValue], boundary: inout WindowBoundary) -> Bool {
        if case .unknown = boundary { boundary = windowBoundary() }
        guard case .last(let lastValues, let lastID, let sortKeys) = boundary, !id.isTemporary else { return false }
        let values: [PropertyValue]
        let isFilled: Bool
        if let object = context.registeredObject(for: id), !object.isFault {
            guard !object.isDeleted, object.context === context else { return false }
            values = index.evaluator.sortValues(of: object)
            isFilled = true
        } else {
            var known: [PropertyValue] = []
            known.reserveCapacity(sortKeys.count)
            for key in sortKeys {
                guard let value = changed[key] else { return false }
                known.append(value)
            }
            values = known
            isFilled = false
        }
        index.statistics.comparisons += 1
        guard index.evaluator.compare(values, id, lastValues, lastID) > 0 else { return false }
        // Below the window, but before the last spare: one the context holds filled is taken in
        // from memory (it may become a spare); for any other, whether it matches is unknown, so
        // the spares from it on are let go (fewer spares, no read).
        guard let spare = spares.last else { return true }
        let evaluator = index.evaluator
        func sortsBefore(_ spare: ResultsIndex.Entry) -> Bool {
            index.statistics.comparisons += 1
            return evaluator.compare(values, id, spare.values ?? evaluator.sortValues(of: index.object(of: spare)), spare.id) < 0
        }
        guard sortsBefore(spare) else { return true }
        if isFilled { return false }
        spares.removeLast(spares.count - (spares.firstIndex(where: sortsBefore) ?? spares.count))
        return true
    }

    /// Whether every object of ours that `changes`, a merged store save, inserted certainly stays outside
    /// a full `fetchLimit` window: both ends of their first sort key's range (from the save,
    /// see `ObjectContext.mergedInsertsRange`) sort after the window's last result's value.
    /// Then none can come in, whether it matches or not, and nothing is read or fetched (an
    /// import appending to a list). The spares from the first one that the range's first end
    /// does not sort after are let go (a new object may sort before them). False when that
    /// cannot be known: the caller then treats the new objects as ones that may come in.
    func insertsStayBelowWindow(_ changes: ChangeSet, boundary: inout WindowBoundary) -> Bool {
        if case .unknown = boundary { boundary = windowBoundary() }
        guard case .last(let lastValues, _, let sortKeys) = boundary, let firstKey = sortKeys.first,
              let (least, greatest) = context.mergedInsertsRange(of: changes, kindOf: index.evaluator.entity, key: firstKey) else { return false }
        let evaluator = index.evaluator
        index.statistics.comparisons += 2
        guard evaluator.compareValue(least, lastValues[0], key: 0) > 0, evaluator.compareValue(greatest, lastValues[0], key: 0) > 0 else { return false }
        let first = evaluator.compareValue(least, greatest, key: 0) <= 0 ? least : greatest   // the end that sorts first
        if let cut = spares.firstIndex(where: { spare in spare.values.map { evaluator.compareValue($0[0], first, key: 0) >= 0 } ?? true }) {
            spares.removeLast(spares.count - cut)
        }
        return true
    }

    /// The window's last result and the sort keys' attributes, or `.none` when objects outside
    /// cannot be placed against it from their values alone (among them a text search ordered
    /// by relevance, where the sort keys only break ties).
    private func windowBoundary() -> WindowBoundary {
        let limit = fetchRequest.fetchLimit
        guard fetchRequest.fetchOffset == 0, limit > 0, !index.isSectioned, index.sections.count == 1,
              fetchRequest.textSearch?.ordersByRelevance != true,
              let sortKeys = index.evaluator.sortAttributeNames else { return .none }
        let section = index.sections[0]
        // Only values the last result was placed with bound the window: a never-read one (a
        // `fetchBatchSize` window) would be read now, with what the batch may have changed.
        guard section.entries.count >= limit, let last = section.entries.last, let values = last.values else { return .none }
        let id = heldKey(of: index.object(of: last)) ?? last.id   // its ID now (a fetch breaks ties with it)
        return .last(values: values, id: id, sortKeys: sortKeys)
    }
}

import Strata

extension FetchedResultsController {
    /// Takes in a batch for a `fetchLimit` window from memory when it can decide the new
    /// window itself; returns false (nothing changed) when it cannot, and the caller fetches
    /// the window again.
    ///
    /// The window holds the first `fetchLimit` matching objects; every untouched object outside
    /// it sorts after the window's last entry (the boundary) or does not match. So the new
    /// window is the first `fetchLimit` of the untouched entries and the touched objects that
    /// match now, among those sorting up to the boundary — exact when there are enough of them,
    /// and when there are not (a deleted or moved row left a gap that an object outside must
    /// fill), only a fetch knows. An update that changes no key the request reads
    /// (`FetchEvaluator.readKeys`) leaves its object where it was, in or out, without a read;
    /// touched results are evaluated again in memory; an object from outside that could come in
    /// (an arrival, or an update of a key the request reads) is not read here — the context
    /// would keep every object read — so the window is fetched again (IDs first). O(changes +
    /// window).
    func applyInWindow(_ changes: ChangeSet, touched: Set<ObjectID>, updatedIDs: Set<ObjectID>) -> Bool {
        let limit = fetchRequest.fetchLimit
        guard fetchRequest.fetchOffset == 0, limit > 0, !index.isSectioned, index.sections.count == 1 else { return false }
        let section = index.sections[0]
        let evaluator = index.evaluator
        let wasFull = section.entries.count >= limit
        let readKeys = index.readKeys

        // Classify the touched objects: untouched-in-effect members stay as they are; the rest
        // are evaluated again.
        var reevaluated: [ObjectID] = []
        var needsRead = 0
        var leaving = Set<ObjectID>()
        for id in touched {
            let member = members[id]
            if changes.deleted.contains(id) {
                if member != nil { leaving.insert(id) }
                continue
            }
            if !changes.inserted.contains(id), member?.indexedID ?? id == id,
               let values = changes.updated[id], values.keys.allSatisfy({ !readKeys.contains($0) }) {
                // Neither membership nor order can have changed (a result's update is reported below).
                continue
            }
            // An object from outside (an arrival, or one whose read keys changed) would have to
            // be read, and the context would keep it: the window's IDs are fetched instead, which
            // registers nothing unless the window changed.
            guard member != nil else { return false }
            if member?.object.isFault == true { needsRead += 1 }
            reevaluated.append(id)
        }
        if needsRead > limit { return false }

        // The boundary: every untouched object outside sorts after it. Its values must be the
        // ones the last result was placed with: a never-read last result (a `fetchBatchSize`
        // window) that the batch changes would be read with its new values, so the window is
        // fetched again instead.
        let last = section.entries.count - 1
        if wasFull, section.entries[last].values == nil,
           let key = objectKeys[ObjectIdentifier(section.entries[last].object)], touched.contains(key) { return false }
        let boundary: (values: [PropertyValue], id: ObjectID)? = wasFull
            ? (index.values(at: last, in: section), section.entries[last].id) : nil

        // Candidates: the untouched members, then the touched objects that match now.
        let reevaluatedSet = Set(reevaluated)
        var candidates: [(entry: ResultsIndex.Entry, values: [PropertyValue], kept: Bool)] = []
        candidates.reserveCapacity(section.entries.count + reevaluated.count)
        for row in section.entries.indices {
            let entry = section.entries[row]
            guard let key = objectKeys[ObjectIdentifier(entry.object)] else { continue }
            if leaving.contains(key) || reevaluatedSet.contains(key) { continue }
            candidates.append((entry, index.values(at: row, in: section), true))
        }
        let loaded = reevaluated.isEmpty ? [] : context.objects(with: reevaluated)
        for (id, object) in zip(reevaluated, loaded) {
            guard !object.isDeleted, object.context === context else { continue }
            index.statistics.evaluations += 1
            guard evaluator.matches(object) else { continue }
            let values = index.currentValues(of: object)
            if let boundary {
                index.statistics.comparisons += 1
                if evaluator.compare(values, id, boundary.values, boundary.id) > 0 { continue }
            }
            candidates.append((ResultsIndex.Entry(object: object, id: id, values: values), values, false))
        }
        // A gap only an object outside the window can fill.
        if wasFull, candidates.count < limit { return false }

        var comparisons = 0
        candidates.sort { a, b in
            comparisons += 1
            return evaluator.compare(a.values, a.entry.id, b.values, b.entry.id) < 0
        }
        index.statistics.comparisons += comparisons
        if candidates.count > limit { candidates.removeLast(candidates.count - limit) }

        index.statistics.windowBatchesInMemory += 1

        // Report from the window before and after (O(window)).
        func current(_ entry: ResultsIndex.Entry) -> ObjectID {
            objectKeys[ObjectIdentifier(entry.object)] ?? changes.permanentIDs[entry.id] ?? entry.id
        }
        let old = FetchedResultsSnapshot(sections: [.init(name: section.name, objectIDs: section.entries.map(current))])
        var objects: [ObjectID: ManagedObject] = [:]
        for entry in section.entries { objects[current(entry)] = entry.object }
        var oldPaths: [ObjectID: FetchedIndexPath] = [:]
        for (row, id) in old.sections[0].objectIDs.enumerated() where updatedIDs.contains(id) {
            oldPaths[id] = FetchedIndexPath(section: 0, row: row)
        }

        // Mutate.
        for entry in section.entries {
            let key = current(entry)
            members[key] = nil
            objectKeys[ObjectIdentifier(entry.object)] = nil
        }
        section.entries = candidates.map { candidate in
            var entry = candidate.entry
            if candidate.kept { entry.id = current(entry) }
            entry.values = candidate.values
            return entry
        }
        for entry in section.entries {
            members[entry.id] = Member(object: entry.object, indexedID: entry.id, values: entry.values)
            objectKeys[ObjectIdentifier(entry.object)] = entry.id
            objects[entry.id] = entry.object
        }
        // Shown values: results show their current values, unsaved edits included; objects
        // outside the window need none.
        let before = Set(old.sections[0].objectIDs)
        for entry in section.entries where (updatedIDs.contains(entry.id) || !before.contains(entry.id)) && !entry.object.isFault {
            shownValues[entry.id, default: [:]].merge(entry.object.changedValues()) { $1 }
        }
        for id in touched where members[id] == nil { shownValues[id] = nil }
        for id in before where members[id] == nil { shownValues[id] = nil }

        let new = snapshot
        var report = new.difference(from: old)
        let reported = Set(report.rows.map(\.objectID))
        for (row, id) in new.sections[0].objectIDs.enumerated() where !reported.contains(id) {
            guard let oldPath = oldPaths[id] else { continue }
            report.rows.append(FetchedRowChange(objectID: id, type: .update, indexPath: oldPath, newIndexPath: FetchedIndexPath(section: 0, row: row)))
        }
        report.rows.sort(by: Self.reportOrder)
        guard !isManuallyReordering else { return true }
        self.report(report, objects: objects)
        return true
    }
}

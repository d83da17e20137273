import Strata

extension FetchedResultsController {
    /// Takes in a batch for a `fetchLimit` window from memory when it can decide the new
    /// window itself; returns false (nothing changed) when it cannot, and the caller fetches
    /// the window again.
    ///
    /// The controller holds the first `fetchLimit` matching objects and a few after them (the
    /// ``spares``); every untouched object outside sorts after the last one held (the boundary)
    /// or does not match. So the new window and spares are the first of the untouched entries
    /// and the touched objects that match now, among those sorting up to the boundary — exact
    /// when there are at least `fetchLimit` of them, and when there are not (more rows left
    /// than the spares could replace), only a fetch knows. An update that changes no key the
    /// request reads (`FetchEvaluator.readKeys`) leaves its object where it was, in or out,
    /// without a read; touched objects held are evaluated again in memory, and so is an object
    /// from outside that the context holds filled (a reorder's list whose context holds every
    /// row); any other object from outside that could come in (an arrival, or an update of a
    /// key the request reads) is not read here — the context would keep every object read — so
    /// the window is fetched again (IDs first). O(changes + window).
    /// `heldArePermanent` says that no result or spare is held under a temporary ID (worked out
    /// by the caller for the batch).
    func applyInWindow(_ changes: ChangeSet, touched: Set<ObjectID>, updatedIDs: Set<ObjectID>, heldArePermanent: Bool) -> Bool {
        let limit = fetchRequest.fetchLimit
        guard fetchRequest.fetchOffset == 0, limit > 0, !index.isSectioned, index.sections.count == 1 else { return false }
        let section = index.sections[0]
        let evaluator = index.evaluator
        let wasFull = section.entries.count >= limit
        let readKeys = index.readKeys
        var spareRows: [ObjectID: Int] = [:]
        for (row, spare) in spares.enumerated() { spareRows[spare.id] = row }

        // Classify the touched objects: untouched-in-effect ones stay as they are; the rest are
        // evaluated again.
        var reevaluated: [ObjectID] = []
        var needsRead = 0
        var leaving = Set<ObjectID>()
        for id in touched {
            let member = members[id]
            let spare = spareRows[id].map { spares[$0] }
            if changes.deleted.contains(id) {
                if member != nil || spare != nil { leaving.insert(id) }
                continue
            }
            if !changes.inserted.contains(id), member?.indexedID ?? id == id,
               let values = changes.updated[id], values.keys.allSatisfy({ !readKeys.contains($0) }) {
                // Neither membership nor order can have changed (a result's update is reported below).
                continue
            }
            if let held = member?.object ?? spare?.object {
                if held.isFault { needsRead += 1 }
            } else {
                // An object from outside (an arrival, or one whose read keys changed) is taken in
                // when the context holds it filled: it is evaluated as a fetch would see it,
                // unsaved edits included, and nothing is read. Otherwise it would have to be
                // read, and the context would keep it: the window's IDs are fetched instead,
                // which registers nothing unless the window changed. So is it while a result or
                // spare is held under a temporary ID (an unsaved insert): the object from outside
                // could be one of them under its new ID.
                guard heldArePermanent, let object = context.registeredObject(for: id), !object.isFault,
                      heldKey(of: object) == nil, !isSpare(object) else { return false }
            }
            reevaluated.append(id)
        }
        if needsRead > limit { return false }

        // The boundary: every untouched object outside sorts after it, the last spare or else
        // the window's last result. Its values must be the ones it was placed with: a never-read
        // last result (a `fetchBatchSize` window) that the batch changes would be read with its
        // new values, so the window is fetched again instead.
        let last = section.entries.count - 1
        var boundary: (values: [PropertyValue], id: ObjectID)?
        if wasFull {
            if let spare = spares.last {
                boundary = (spare.values ?? index.currentValues(of: index.object(of: spare)), spare.id)
            } else {
                if section.entries[last].values == nil, let key = heldKey(of: object(at: last, in: section)),
                   touched.contains(key) { return false }
                boundary = (index.values(at: last, in: section), section.entries[last].id)
            }
        }

        // The ID an entry is held under now (a save may have made it permanent).
        func current(_ entry: ResultsIndex.Entry) -> ObjectID {
            heldKey(of: index.object(of: entry)) ?? changes.permanentIDs[entry.id] ?? entry.id
        }
        // Candidates: the untouched results and spares, then the touched objects that match now.
        let reevaluatedSet = Set(reevaluated)
        var candidates: [(entry: ResultsIndex.Entry, values: [PropertyValue], kept: Bool)] = []
        candidates.reserveCapacity(section.entries.count + spares.count + reevaluated.count)
        for row in section.entries.indices {
            let entry = section.entries[row]
            guard let key = heldKey(of: object(at: row, in: section)) else { continue }
            if leaving.contains(key) || reevaluatedSet.contains(key) { continue }
            candidates.append((entry, index.values(at: row, in: section), true))
        }
        for spare in spares where !leaving.contains(spare.id) && !reevaluatedSet.contains(spare.id) {
            candidates.append((spare, spare.values ?? index.currentValues(of: index.object(of: spare)), true))
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
        // A gap only an object outside the window and its spares can fill.
        if wasFull, candidates.count < limit { return false }

        var comparisons = 0
        candidates.sort { a, b in
            comparisons += 1
            return evaluator.compare(a.values, a.entry.id, b.values, b.entry.id) < 0
        }
        index.statistics.comparisons += comparisons
        // The candidates after the window are the new spares (all sort up to the boundary).
        var newSpares: [ResultsIndex.Entry] = []
        for candidate in candidates.dropFirst(limit).prefix(spareCount) {
            var entry = candidate.entry
            if candidate.kept { entry.id = current(entry) }
            entry.values = candidate.values
            newSpares.append(entry)
        }
        if candidates.count > limit { candidates.removeLast(candidates.count - limit) }

        index.statistics.windowBatchesInMemory += 1

        // Report from the window before and after (O(window)).
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
            setHeldKey(nil, of: entry.object)
        }
        section.entries = candidates.map { candidate in
            var entry = candidate.entry
            if candidate.kept { entry.id = current(entry) }
            entry.values = candidate.values
            return entry
        }
        for entry in section.entries {
            members[entry.id] = Member(object: entry.object, indexedID: entry.id, values: entry.values)
            setHeldKey(entry.id, of: entry.object)
            objects[entry.id] = entry.object
        }
        spares = newSpares
        // Shown values: results show their current values, unsaved edits included; objects
        // outside the window need none.
        let before = Set(old.sections[0].objectIDs)
        for entry in section.entries where updatedIDs.contains(entry.id) || !before.contains(entry.id) {
            guard let object = entry.object, !object.isFault else { continue }
            shownValues[entry.id, default: [:]].merge(object.changedValues()) { $1 }
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

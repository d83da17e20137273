import Strata

extension FetchedResultsController {
    /// Whether the request shows a window of the matching objects (`fetchLimit` or
    /// `fetchOffset`): then an object leaving it lets one from outside in, which the index
    /// cannot always know. A `fetchLimit` window takes a batch in from memory when it can
    /// decide the new window itself (``applyInWindow(_:touched:updatedIDs:heldArePermanent:)``); otherwise, and
    /// for an offset or sections, the batch fetches the window again.
    var showsWindow: Bool { fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0 }

    /// Takes in a batch for a windowed request: fetches the window again and reports the
    /// difference, plus an update for each changed object that stayed without moving. O(window)
    /// and one fetch per batch; `updatedIDs` are the objects with non-echo updates. A failed
    /// fetch keeps the results as they were and reports nothing.
    func handleInWindow(_ changes: ChangeSet, updatedIDs: Set<ObjectID>) {
        func current(_ entry: ResultsIndex.Entry) -> ObjectID {
            heldKey(of: index.object(of: entry)) ?? changes.permanentIDs[entry.id] ?? entry.id
        }
        let old = FetchedResultsSnapshot(sections: index.sections.map { .init(name: $0.name, objectIDs: $0.entries.map(current)) })
        var objects: [ObjectID: ManagedObject] = [:]
        for section in index.sections { for entry in section.entries { objects[current(entry)] = entry.object } }
        index.statistics.windowRefetches += 1
        // The window's IDs first (no objects made): when they are the ones shown, in order, only
        // the updated results' values are read again (an unsectioned window; a section's name
        // comes from values), and the spares' when they changed.
        var request = fetchRequest
        request.fetchLimit += spareCount
        let limit = spareCount > 0 ? fetchRequest.fetchLimit : Int.max   // the window's rows among those fetched
        if !index.isSectioned, index.sections.count == 1, let fetched = try? context.fetchObjectIDs(request),
           fetched.prefix(limit).elementsEqual(old.sections[0].objectIDs) {
            let ids = Array(fetched.prefix(limit))
            let past = fetched.dropFirst(limit)
            if !past.elementsEqual(spares.lazy.map(\.id)) || spares.contains(where: { updatedIDs.contains($0.id) }) {
                spares = makeSpares(context.objects(with: Array(past)))
            }
            let section = index.sections[0]
            var rows: [FetchedRowChange] = []
            for row in section.entries.indices {
                let entry = section.entries[row]
                let id = ids[row]
                if entry.id != id || members[id]?.indexedID != id {
                    // Re-keyed (temporary → permanent): sorted with its new ID from now on.
                    section.entries[row].id = id
                    members[id]?.indexedID = id
                }
                guard updatedIDs.contains(id) else { continue }
                let held = object(at: row, in: section)
                let values = index.currentValues(of: held)
                section.entries[row].values = values
                members[id]?.values = values
                if !held.isFault { shownValues[id, default: [:]].merge(held.changedValues()) { $1 } }
                let path = FetchedIndexPath(section: 0, row: row)
                rows.append(FetchedRowChange(objectID: id, type: .update, indexPath: path, newIndexPath: path))
            }
            for id in Set(shownValues.keys) where members[id] == nil { shownValues[id] = nil }
            guard !isManuallyReordering else { return }
            self.report(FetchedResultsChanges(sections: [], rows: rows), objects: objects)
            return
        }
        do { try loadResults() } catch { return }
        members.forEach { id, member in if let object = member.object { objects[id] = object } }
        // Objects updated or come into the window show their current values, unsaved edits
        // included: a later save carrying those is an echo.
        let before = Set(old.itemIdentifiers)
        members.forEach { id, member in
            guard updatedIDs.contains(id) || !before.contains(id), let object = member.object, !object.isFault else { return }
            shownValues[id, default: [:]].merge(object.changedValues()) { $1 }
        }
        for id in Set(shownValues.keys) where members[id] == nil { shownValues[id] = nil }
        let new = snapshot
        var report = new.difference(from: old)
        var oldPaths: [ObjectID: FetchedIndexPath] = [:]
        for (s, section) in old.sections.enumerated() {
            for (r, id) in section.objectIDs.enumerated() where updatedIDs.contains(id) { oldPaths[id] = FetchedIndexPath(section: s, row: r) }
        }
        let reported = Set(report.rows.map(\.objectID))
        for (s, section) in new.sections.enumerated() {
            for (r, id) in section.objectIDs.enumerated() where !reported.contains(id) {
                guard let oldPath = oldPaths[id] else { continue }
                report.rows.append(FetchedRowChange(objectID: id, type: .update, indexPath: oldPath, newIndexPath: FetchedIndexPath(section: s, row: r)))
            }
        }
        report.rows.sort(by: Self.reportOrder)
        guard !isManuallyReordering else { return }
        self.report(report, objects: objects)
    }
}

import Strata

extension FetchedResultsController {
    /// Whether the request shows a window of the matching objects (`fetchLimit` or
    /// `fetchOffset`): then an object leaving it lets one from outside in, which the index
    /// cannot always know. A `fetchLimit` window takes a batch in from memory when it can
    /// decide the new window itself (``applyInWindow(_:touched:updatedIDs:)``); otherwise, and
    /// for an offset or sections, the batch fetches the window again.
    var showsWindow: Bool { fetchRequest.fetchLimit > 0 || fetchRequest.fetchOffset > 0 }

    /// Takes in a batch for a windowed request: fetches the window again and reports the
    /// difference, plus an update for each changed object that stayed without moving. O(window)
    /// and one fetch per batch; `updatedIDs` are the objects with non-echo updates. A failed
    /// fetch keeps the results as they were and reports nothing.
    func handleInWindow(_ changes: ChangeSet, updatedIDs: Set<ObjectID>) {
        func current(_ entry: ResultsIndex.Entry) -> ObjectID {
            objectKeys[ObjectIdentifier(entry.object)] ?? changes.permanentIDs[entry.id] ?? entry.id
        }
        let old = FetchedResultsSnapshot(sections: index.sections.map { .init(name: $0.name, objectIDs: $0.entries.map(current)) })
        var objects: [ObjectID: ManagedObject] = [:]
        for section in index.sections { for entry in section.entries { objects[current(entry)] = entry.object } }
        index.statistics.windowRefetches += 1
        do { try loadResults() } catch { return }
        for (id, member) in members { objects[id] = member.object }
        // Objects updated or come into the window show their current values, unsaved edits
        // included: a later save carrying those is an echo.
        let before = Set(old.itemIdentifiers)
        for (id, member) in members where (updatedIDs.contains(id) || !before.contains(id)) && !member.object.isFault {
            shownValues[id, default: [:]].merge(member.object.changedValues()) { $1 }
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

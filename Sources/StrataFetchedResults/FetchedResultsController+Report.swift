import Strata

extension FetchedResultsController {
    /// Where a row change goes in a batch's report, smallest first: deletes (last first), then
    /// inserts and moves (by new path), then updates (by new path).
    private static func reportKey(_ row: FetchedRowChange) -> (Int, Int, Int) {
        switch row.type {
        case .delete:
            let path = row.indexPath ?? .init(section: 0, row: 0)
            return (0, -path.section, -path.row)
        case .insert, .move:
            let path = row.newIndexPath ?? .init(section: 0, row: 0)
            return (1, path.section, path.row)
        case .update:
            let path = row.newIndexPath ?? .init(section: 0, row: 0)
            return (2, path.section, path.row)
        }
    }

    /// The order of a batch's rows in ``reportOrder(_:_:)``, each row's key computed once: the
    /// rows' positions, first to report first. The key packed into one integer where sections
    /// and rows fit (always, in practice), so a batch of thousands sorts plain integers.
    static func reportOrdering(_ rows: [FetchedRowChange]) -> [Int] {
        let limit = 1 << 30
        var packed: [(key: Int, position: Int)] = []
        packed.reserveCapacity(rows.count)
        for (position, row) in rows.enumerated() {
            let (type, section, index) = reportKey(row)
            // Deletes' section and row are negated: offset by limit - 1, they stay in 0 ..< limit.
            let s = type == 0 ? section + (limit - 1) : section, r = type == 0 ? index + (limit - 1) : index
            guard s >= 0, s < limit, r >= 0, r < limit else {
                let keys = rows.map(reportKey)
                return keys.indices.sorted { keys[$0] < keys[$1] }
            }
            packed.append(((type << 60) | (s << 30) | r, position))
        }
        packed.sort { $0.key < $1.key }
        return packed.map(\.position)
    }

    /// Deletes (last first), then inserts and moves (by new path), then updates.
    static func reportOrder(_ a: FetchedRowChange, _ b: FetchedRowChange) -> Bool {
        reportKey(a) < reportKey(b)
    }

    /// Reports a batch worked out from a change set: `rows` in any order, `objects[i]` the
    /// object of `rows[i]` (nil for a result placed from a merged save, never made). Nothing is
    /// reported while the user reorders by hand (`suppressing`).
    ///
    /// Rows placed from a save get objects only if the delegate takes rows: the first one alone
    /// (whether the delegate takes rows is known once it has had one), then the rest together. A
    /// deleted row never made gets a stand-in (the merge has forgotten it).
    func reportBatch(sections: [FetchedSectionChange], rows: [FetchedRowChange], objects: [ManagedObject?], suppressing: Bool) {
        let order = Self.reportOrdering(rows)
        guard !suppressing else { return }
        var rowObjects = objects
        var madeTheRest = false
        report(FetchedResultsChanges(sections: sections, rows: order.map { rows[$0] })) { row, change in
            let i = order[row]
            if let object = rowObjects[i] { return object }
            if change.type == .delete { return context.deletedObject(for: change.objectID) }
            if row > 0, !madeTheRest {
                madeTheRest = true
                let missing = rowObjects.indices.filter { rowObjects[$0] == nil && rows[$0].type != .delete }
                for (k, object) in zip(missing, makeObjects(missing.map { rows[$0].objectID })) { rowObjects[k] = object }
                if let object = rowObjects[i] { return object }
            }
            let object = makeObjects([change.objectID])[0]
            rowObjects[i] = object
            return object
        }
    }

    /// Tells the delegate about one batch, its objects found in `objects` or among the results.
    func report(_ changes: FetchedResultsChanges, objects: [ObjectID: ManagedObject]) {
        report(changes) { _, change in
            objects[change.objectID] ?? members[change.objectID]?.object
                ?? (change.type == .delete ? context.deletedObject(for: change.objectID) : context.object(with: change.objectID))
        }
    }

    /// Tells the delegate about one batch; `object` gives the object of the row at a position.
    func report(_ changes: FetchedResultsChanges, object: (Int, FetchedRowChange) -> ManagedObject?) {
        guard !changes.isEmpty, let delegate else { return }
        delegate.controllerWillChangeContent(self)
        for change in changes.sections { delegate.controller(self, didChangeSection: change.name, at: change.index, for: change.type) }
        for (row, change) in changes.rows.enumerated() {
            // A delegate without its own row method is not handed the rows' objects (making
            // them would undo placing a merged save's rows without objects).
            if delegateIgnoresRows { break }
            guard let object = object(row, change) as? Object else { continue }
            delegate.controller(self, didChange: object, at: change.indexPath, for: change.type, newIndexPath: change.newIndexPath)
        }
        delegate.controllerDidChangeContent(self)
        delegate.controller(self, didChangeContentWith: changes)
    }
}

import Strata

/// One result a batch updates only in keys the request does not read (a type outside the
/// generic controller, so that the code handling a list of them is specialised).
private struct PlainUpdate {
    let id: ObjectID
    let object: ManagedObject?
    let values: [PropertyValue]
}

extension FetchedResultsController {
    /// Reports a batch that only updates results in keys the request does not read (an import's
    /// second pass setting each book's author, under a list sorted by position): every such
    /// result stays where it is and is reported updated at its path, with no work record, no
    /// placement and no evaluation. Returns false, having changed nothing but the objects it
    /// found made since their rows were placed, when the batch does anything else to the
    /// controller's objects; the general path (``handle(_:)``) then takes the batch.
    ///
    /// For example (inside ``handle(_:)``):
    /// ```swift
    /// if reportPlainUpdates(changes, isOurs: isOurs, suppressing: suppressing) { return }
    /// ```
    func reportPlainUpdates(_ changes: ChangeSet, isOurs: (ObjectID) -> Bool, suppressing: Bool) -> Bool {
        guard !changes.updated.isEmpty else { return false }
        for id in changes.inserted where isOurs(id) { return false }
        for id in changes.deleted where isOurs(id) { return false }
        guard let updates = plainUpdates(changes, isOurs: isOurs) else { return false }
        var rows: [FetchedRowChange] = []
        var objects: [ManagedObject?] = []
        rows.reserveCapacity(updates.count)
        objects.reserveCapacity(updates.count)
        // In key order, the order an import wrote the rows in: each is then usually found right
        // after the one before, and the report's sort finds its rows in order (`KeyOrder`).
        var previous: FetchedIndexPath?
        for update in KeyOrder.ordered(updates, by: { $0.id }) {
            guard let path = index.locate(update.object, values: update.values, id: update.id, after: previous) else { return false }
            previous = path
            rows.append(FetchedRowChange(objectID: update.id, type: .update, indexPath: path, newIndexPath: path))
            objects.append(update.object)
        }
        if !rows.isEmpty { reportBatch(sections: [], rows: rows, objects: objects, suppressing: suppressing) }
        return true
    }

    /// The results `changes` updates, when each is a plain update: held under its own ID with
    /// the values it was sorted by, changed only in keys the request does not read, with a row
    /// version (a store save's update), no unsaved changes here, and nothing remembered as
    /// shown. `nil` as soon as one is not (the general path also keeps shown values for those).
    /// An update that changes no key is left out, as the general path leaves it.
    private func plainUpdates(_ changes: ChangeSet, isOurs: (ObjectID) -> Bool) -> [PlainUpdate]? {
        let readKeys = index.readKeys
        var updates: [PlainUpdate] = []
        updates.reserveCapacity(changes.updated.count)
        // (Keys the store's change set says no update names need no look at each update.)
        let namesNoReadKey = changes.updatesNameNone(of: readKeys)
        var lastUnreadKey: String?   // an import's pass changes one key of every object: checked once
        for (id, changed) in changes.updated where isOurs(id) {
            if changed.isEmpty { continue }
            if !namesNoReadKey {
                if changed.count == 1, let key = changed.keys.first {
                    if key != lastUnreadKey {
                        guard !readKeys.contains(key) else { return nil }
                        lastUnreadKey = key
                    }
                } else if changed.keys.contains(where: { readKeys.contains($0) }) {
                    return nil
                }
            }
            guard var member = members[id], member.indexedID == id, let values = member.values,
                  changes.versions[id] != nil, shownValues.isEmpty || shownValues[id] == nil else { return nil }
            if member.object == nil, let made = context.registeredObject(for: id) {
                // A result placed without its object, made since (a row shown): held from now on.
                member.object = made
                members[id]?.object = made
            }
            if member.object?.hasChanges == true { return nil }
            updates.append(PlainUpdate(id: id, object: member.object, values: values))
        }
        return updates
    }
}

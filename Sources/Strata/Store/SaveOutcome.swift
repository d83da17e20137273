/// What the store did with a ``ChangeBatch``, by the IDs the batch names (temporary IDs for
/// inserts): keys given, versions written, rows to take after a conflict was resolved.
struct SaveOutcome: Sendable {
    /// Primary keys given to inserted objects (including objects that became an existing row).
    var assignedKeys: [ObjectID: Int64] = [:]
    /// The same keys by position in the batch's inserts (`nil`: the ID was permanent already).
    var insertedKeys: [Int64?] = []
    /// The keys reserved for inserts that then became an existing row, by their temporary IDs:
    /// rows this save wrote before that may name them (``SaveTransaction/repointForeignKeys(_:_:)``).
    var reservedKeysOfAdopted: [ObjectID: Int64] = [:]

    /// The stored rows that inserts of this save became, each with the insert's ID.
    var adoptedRows: [ObjectID: ObjectID] = [:]

    /// Whether the insert `id` became a stored row (a lookup only when any did: the common save
    /// hashes nothing).
    func becameStoredRow(_ id: ObjectID) -> Bool {
        !reservedKeysOfAdopted.isEmpty && reservedKeysOfAdopted[id] != nil
    }
    /// Row versions written, where they are not simply 1 (insert) or the read version + 1.
    var versions: [ObjectID: Int64] = [:]
    /// Rows as they stand after a conflict was resolved by the merge policy: the object takes them.
    var refreshed: [ObjectID: RowSnapshot] = [:]
    /// Updated objects whose row was deleted in the store (under a policy other than `.error`).
    var vanished: Set<ObjectID> = []
    /// Deleted objects kept because the `.rollback` policy gave the store's row precedence.
    var undeleted: Set<ObjectID> = []
    /// Rows whose foreign key still pointed at a deleted row, set to NULL: (row, key, new version).
    var nullified: [(ObjectID, String, Int64)] = []
    /// The save's commit's number among this process's commits to the file (``StoreFileCommits``).
    var commit: UInt64 = 0
    /// The file's commit counters (set after the commit).
    var file: StoreFileCommits?
    /// The keys given to each entity's inserts (by entity index), for ``SavedInserts``.
    var keyBlocks: [Int: SavedInserts.KeyBlock] = [:]
    /// Derived values the save's writes changed, by permanent ID: (attribute slot, new value).
    /// The rows' versions do not change: only the store writes derived columns, so no
    /// context's save can overwrite them with a stale value.
    var derived: [ObjectID: [(slot: Int, value: PropertyValue)]] = [:]

    /// Gives the insert at `position` of the batch (ID `id`) the row key `key`.
    mutating func assign(_ key: Int64, to id: ObjectID, at position: Int) {
        assignedKeys[id] = key
        if id.isTemporary { insertedKeys[position] = key }   // an ID already permanent stays as it is
    }

    /// The ID an object of the batch has after the save (permanent for an insert).
    func savedID(of id: ObjectID) -> ObjectID {
        guard id.isTemporary, let key = assignedKeys[id] else { return id }
        return ObjectID(entity: id.entity, key: key)
    }

    /// `value` with objects inserted by this save named by their new IDs.
    func savedValue(_ value: PropertyValue) -> PropertyValue {
        switch value {
        case .objectID(let id) where id.isTemporary: .objectID(savedID(of: id))
        case .objectIDs(let ids) where ids.contains(where: \.isTemporary): .objectIDs(ids.map(savedID))
        default: value
        }
    }

    /// The rows the save wrote that existed before it, for the row cache to forget: updated,
    /// deleted, cleared references, rows taken after a conflict, inserts that became an
    /// existing row. (A new row's key was never used before, so no cache holds it.)
    func rowsWritten(by batch: ChangeBatch) -> [ObjectID] {
        var ids: [ObjectID] = []
        ids.reserveCapacity(batch.updated.count + batch.deleted.count + nullified.count + refreshed.count + derived.count)
        for change in batch.updated { ids.append(change.id) }
        for deletion in batch.deleted { ids.append(deletion.id) }
        for (id, _, _) in nullified { ids.append(id) }
        for id in refreshed.keys { ids.append(savedID(of: id)) }
        ids.append(contentsOf: derived.keys)   // rows whose derived values the store changed, written or not (permanent IDs)
        if !versions.isEmpty {
            for change in batch.inserted where versions[change.id] != nil { ids.append(savedID(of: change.id)) }
        }
        return ids
    }

    /// What the save changed, as other contexts and observers receive it. `updatedValues`, when
    /// given, holds each update's ``ObjectChange/changedValues`` in the batch's order (made
    /// while the store wrote: ``ChangedValuesInParallel``).
    /// From this many inserts on, a save sizes its tables of them (keys assigned, the change
    /// set's inserted and permanent IDs) once: one allocation each, not one per doubling and
    /// its rehash. Below it a reserve costs more than the growth it saves.
    static let insertsSizedAtOnce = 16

    func changeSet(for batch: ChangeBatch, updatedValues: [[String: PropertyValue]]? = nil) -> ChangeSet {
        var changes = ChangeSet()
        if !batch.updated.isEmpty {   // (on an empty dictionary even a reserve of 0 allocates)
            changes.updated.reserveCapacity(batch.updated.count)
            changes.versions.reserveCapacity(batch.updated.count)
        }
        if batch.inserted.count >= Self.insertsSizedAtOnce {
            changes.inserted.reserveCapacity(batch.inserted.count)
            if !assignedKeys.isEmpty { changes.permanentIDs.reserveCapacity(batch.inserted.count) }
        }
        let anyVersions = !versions.isEmpty
        for (change, key) in zip(batch.inserted, insertedKeys) {
            var permanent = change.id
            if let key {
                permanent = ObjectID(entity: change.id.entity, key: key)
                changes.permanentIDs[change.id] = permanent
            }
            if anyVersions, let version = versions[change.id] { changes.versions[permanent] = version }  // rows start at 1: not listed
            changes.inserted.insert(permanent)
        }
        var maker = ChangedValuesMaker()
        let anyVanished = !vanished.isEmpty
        for (position, change) in batch.updated.enumerated() where !anyVanished || !vanished.contains(change.id) {
            var values = updatedValues?[position] ?? maker.values(of: change)
            // Relationships name objects inserted by this save by their new IDs.
            if !assignedKeys.isEmpty {
                for relation in change.relations {
                    let key = change.id.entity.relationships[relation.slot].name
                    values[key] = savedValue(relation.value)
                }
            }
            changes.updated[change.id] = values
            changes.versions[change.id] = versions[change.id] ?? change.version + 1
        }
        for deletion in batch.deleted where !undeleted.contains(deletion.id) { changes.deleted.insert(deletion.id) }
        for (id, key, version) in nullified {
            changes.updated[id, default: [:]][key] = .null
            changes.versions[id] = version
        }
        // Rows taken after a conflict: the row as it now stands (a retry under a merge policy
        // may have written any of its attributes and to-ones).
        for (id, row) in refreshed {
            let saved = savedID(of: id)
            let entity = saved.entity
            if !changes.inserted.contains(saved) {
                var values: [String: PropertyValue] = [:]
                for (i, attribute) in entity.attributes.enumerated() { values[attribute.name] = row.attributes[i] }
                for (i, relationship) in entity.relationships.enumerated() {
                    if let target = row.toOneTarget(i) { values[relationship.name] = target.map(PropertyValue.objectID) ?? .null }
                }
                changes.updated[saved] = values
            }
            changes.versions[saved] = row.version
        }
        for id in vanished { changes.deleted.insert(id) }
        // Derived values: for updated rows and rows the save changed through their
        // relationships (a folder whose note count changed); new objects carry theirs in the
        // saving context only, as a change set's inserts carry no values.
        if !derived.isEmpty { changes.addDerivedValues(derived) }
        // The inserts, for contexts that merge the change set (a reference to what exists):
        // not after a conflict, where an insert may have become a stored row.
        if commit > 0 { changes.commits = commit...commit }
        if !keyBlocks.isEmpty, versions.isEmpty, refreshed.isEmpty {
            if let file {
                changes.savedInserts = [SavedInserts(changes: batch.inserted, blocks: keyBlocks, keys: assignedKeys, commit: commit,
                                                     file: file, externalChanges: file.externalChanges.load(ordering: .acquiring))]
            }
        }
        // Here, off the queues of the contexts that merge it: a list following the saves
        // passes over updates that name no key it reads without looking at each.
        // From the batch's changes when they are all the updates (a run of one shape adds its
        // names once); by every update's keys when the store added some of its own.
        if !changes.updated.isEmpty {
            if nullified.isEmpty, refreshed.isEmpty, derived.isEmpty {
                changes.summariseUpdatedKeys(of: batch.updated)
            } else {
                changes.summariseUpdatedKeys()
            }
        }
        return changes
    }
}

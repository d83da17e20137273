import Logging
import OrderedCollections

extension ObjectContext: ObjectOwner {
    var checksObjectAccess: Bool { checksQueueAccess }

    func checkAccess(_ object: ManagedObject) {
        trapIfOffQueue("\(object.entity.name) object \(object.objectID)")
    }

    func fireFault(_ object: ManagedObject) {
        settleSave()   // the row may name objects the save in flight inserts
        let entity = object.entity
        let members = object.faultBatch?.members ?? [object.objectID]
        var faults: [ManagedObject] = []
        faults.reserveCapacity(members.count)
        // A fetch of a superentity batches faults of several entities: each reads with its own
        // entity's columns, so a firing fills only those of the firing object's entity.
        for id in members where id.entity === entity {
            if let member = registry[id], member.lifecycle.isFault { faults.append(member) }
        }
        if faults.isEmpty { faults = [object] }
        // Rows a merge being reported carries are the store's: taken unless an ancestor may
        // hold unsaved changes of the entity (then the parent's view is the one to read).
        var fromMerge: [ManagedObject] = []
        if let changes = mergingChanges, !source.ancestorsMayHavePending(entity) { (fromMerge, faults) = fill(faults, from: changes) }
        if !faults.isEmpty { read(faults, of: entity) }
        // Woken once every fault of the batch is filled (a hook may touch another of them).
        for fault in fromMerge + faults where !fault.lifecycle.isFault && fault.valueErrors[-1] == nil { fault.awakeFromFetch() }
    }

    /// Fills `faults` (of `entity`) from their rows below; a fault without one is marked missing.
    private func read(_ faults: [ManagedObject], of entity: EntityDescription) {
        do {
            var rows = try source.rows(of: entity, ids: faults.map(\.objectID), staleness: stalenessInterval)
            if rows.count == faults.count, rows.indices.allSatisfy({ rows[$0].id == faults[$0].objectID }) {
                // The rows came back in the faults' order (a page of keys read by `_id`, the
                // common case): fill by position, no dictionary of rows by ID.
                for i in faults.indices { fill(faults[i], taking: &rows[i]) }
            } else {
                var byID: [ObjectID: RowSnapshot] = [:]
                byID.reserveCapacity(rows.count)
                for row in rows { byID[row.id] = row }
                for fault in faults {
                    if let row = byID[fault.objectID] {
                        fill(fault, with: row)
                    } else {
                        markMissing(fault, StrataError(.objectNotFound, "The row of \(fault.objectID) no longer exists.", entity: entity.name, objectID: fault.objectID))
                    }
                }
            }
        } catch {
            for fault in faults { markMissing(fault, error) }
        }
    }

    /// Fills the faults never read before (not refreshed ones) whose rows the change set being
    /// merged holds; returns those and the others.
    private func fill(_ faults: [ManagedObject], from changes: ChangeSet) -> (filled: [ManagedObject], others: [ManagedObject]) {
        var filled: [ManagedObject] = []
        var others: [ManagedObject] = []
        for fault in faults {
            if fault.rowVersion == 0, let row = changes.savedSnapshot(of: fault.objectID, lookup: mergingLookup) {
                fill(fault, with: row)
                filled.append(fault)
            } else {
                others.append(fault)
            }
        }
        return (filled, others)
    }

    /// A fault whose row cannot be read: it gets default values and the error, which
    /// ``existingObject(with:)`` and validation report.
    private func markMissing(_ object: ManagedObject, _ error: StrataError) {
        Logger(label: "strata.context").warning("\(error)")
        object.attributeValues = object.entity.defaultAttributeValues
        object.relationValues = object.entity.newRelationValues
        object.valueErrors[-1] = error
        object.lifecycle.isFault = false
        object.faultBatch = nil
        // Loaded partners agree with the empty row (see ObjectContext+Inverses).
        adoptRowRelations(object)
        for (index, relationship) in object.entity.relationships.enumerated() where relationship.isToMany {
            object.relationValues[index] = .toMany(OrderedSet(adoptToMany(object, at: index, members: [])))
        }
    }

    func loadToMany(_ object: ManagedObject, relationship index: Int) -> [ManagedObject] {
        settleSave()   // the store may list objects the save in flight inserts
        guard !object.lifecycle.isInserted else { return [] }
        do {
            let asked = object.objectID
            let targets = try source.related(of: object.entity, relationship: index, ids: [asked])
            catchUpPermanentIDs()   // before the answer's IDs become objects
            let members = (targets[asked] ?? []).map(resolve).filter { !$0.lifecycle.isDeleted }
            guard object.entity.relationships[index].isToMany else {
                adoptToOne(object, at: index, target: members.first?.objectID, previous: nil)
                return members
            }
            return adoptToMany(object, at: index, members: members)
        } catch {
            object.valueErrors[-1] = error
            Logger(label: "strata.context").error("\(error)")
            return []
        }
    }

    func objectWillChange(_ object: ManagedObject) {
        notePending(object.entity)
        if !object.lifecycle.isInserted && !object.lifecycle.isDeleted { pending.updated.append(object) }
    }
}

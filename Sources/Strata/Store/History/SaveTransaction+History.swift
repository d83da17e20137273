import GRDB

/// A save's record in the store's history, written by the save's own transaction.
extension SaveTransaction {
    /// Records what the save wrote: inserts, the keys of updates (and of rows whose foreign key
    /// a delete cleared), many-to-many members added and removed, deletes with the unique
    /// values of the deleted objects.
    func recordHistory(_ origin: SaveOrigin, _ db: Database, _ outcome: SaveOutcome) throws {
        var writer = HistoryWriter()
        for (change, assigned) in zip(batch.inserted, outcome.insertedKeys) {
            guard let key = assigned ?? change.id.primaryKey else { continue }
            // An insert that became an existing row (a unique value under a merge policy) updated it.
            let adopted = outcome.refreshed[change.id] != nil
            let changeID = writer.change(change.id.entity, key: key, adopted ? .update : .insert,
                                             keys: adopted ? change.changedKeys : [])
            recordMembers(of: change, changeID, &writer, outcome)
        }
        for change in batch.updated where !outcome.vanished.contains(change.id) {
            // Under `.rollback` a conflicting update wrote nothing: it took the store's row.
            if policy == .rollback, outcome.refreshed[change.id] != nil { continue }
            let changeID = writer.change(change.id.entity, key: change.id.key, .update, keys: change.changedKeys)
            recordMembers(of: change, changeID, &writer, outcome)
        }
        for deletion in batch.deleted where !outcome.undeleted.contains(deletion.id) && !deletion.id.isTemporary {
            let entity = deletion.id.entity
            let changeID = writer.change(entity, key: deletion.id.key, .delete)
            for (i, attribute) in entity.attributes.enumerated() where attribute.isUnique && i < deletion.values.count && !deletion.values[i].isNull {
                writer.tombstone(of: changeID, attribute: attribute.name, value: deletion.values[i])
            }
        }
        for (id, key, _) in outcome.nullified { writer.change(id.entity, key: id.key, .update, keys: [key]) }
        try writer.write(.save, author: origin.author, context: origin.contextName, db)
    }

    /// The members a change added to and removed from its many-to-many relationships.
    private func recordMembers(of change: ObjectChange, _ changeID: Int, _ writer: inout HistoryWriter, _ outcome: SaveOutcome) {
        for relation in change.relations {
            let relationship = change.id.entity.relationships[relation.slot]
            guard case .joinTable = relationship.storage else { continue }
            for member in relation.added {
                if let key = key(of: member, outcome) { writer.member(of: changeID, relationship: relationship.name, key: key, added: true) }
            }
            for member in relation.removed {
                if let key = key(of: member, outcome) { writer.member(of: changeID, relationship: relationship.name, key: key, added: false) }
            }
        }
    }
}

/// Who saved: recorded with the save in the store's history.
struct SaveOrigin: Sendable {
    /// The context's ``ObjectContext/transactionAuthor``.
    var author: String?
    /// The context's name.
    var contextName: String?
}

extension ChangeSet {
    /// The row of inserted object `id` as the store holds it after the changes this set
    /// reports, as reading it back from SQLite gives it: its insert (``savedInserts``) with
    /// the attributes in their stored forms (transformable values decoded again from their
    /// bytes) and the to-ones the row stores named by their new IDs, then the set's updates of
    /// it. `nil` when the set did not insert it or deleted it, when its entity has derived
    /// attributes (the store computes them), or when a value does not decode (a read reports
    /// that). `lookup` (of ``savedInserts``) finds the save among many without a scan.
    ///
    /// For example (inside the engine, while a merge tells its observers):
    /// ```swift
    /// if let row = changes.savedSnapshot(of: fault.objectID) { fill(fault, with: row) }
    /// ```
    func savedSnapshot(of id: ObjectID, lookup: SavedInsertsLookup? = nil) -> RowSnapshot? {
        guard !savedInserts.isEmpty, inserted.contains(id), !deleted.contains(id) else { return nil }
        let candidates = savedInserts.count == 1 ? savedInserts : (lookup ?? SavedInsertsLookup(savedInserts)).inserts(of: id).map { [$0] } ?? []
        for inserts in candidates {
            guard let change = inserts.change(for: id) else { continue }
            let entity = id.entity
            guard !entity.hasDerivedAttributes, change.values.count == entity.attributes.count,
                  var attributes = PropertyValue.storedForms(change.values, of: entity) else { return nil }
            var relations = [RelationValue](repeating: .unloaded, count: entity.relationships.count)
            for slot in entity.storedToOneSlots { relations[slot] = .toOneID(nil) }
            for relation in change.relations where relation.slot < relations.count {
                if case .toOne(let target?, _) = relation.kind, case .toOneID = relations[relation.slot] {
                    relations[relation.slot] = .toOneID(inserts.savedID(target))
                }
            }
            var version: Int64 = 1
            if let values = updated[id] {
                // Later changes of the object in this set (a reference the save cleared, a
                // coalesced update).
                for (key, value) in values {
                    switch entity.propertyIndex[key] {
                    case .attribute(let i)?:
                        guard let stored = value.storedForm(transformer: entity.attributeTransformers[i]) else { return nil }
                        attributes[i] = stored
                    case .relationship(let r)?:
                        guard case .toOneID = relations[r] else { continue }   // not in the row
                        if case .objectID(let target) = value { relations[r] = .toOneID(target) } else { relations[r] = .toOneID(nil) }
                    case nil:
                        return nil
                    }
                }
                version = versions[id] ?? 2
            }
            return RowSnapshot(id: id, version: version, attributes: attributes, relationValues: relations, errors: [:])
        }
        return nil
    }
}

/// An object's storage seen as changes: what a save or a push hands on (see ``ChangeBatch``).
extension ManagedObject {
    /// The object as an insert: every attribute and relationship.
    final func insertChange() -> ObjectChange {
        let relations = relationValues.indices.map { slot in
            RelationChange(slot: slot, kind: relationKind(relationValues[slot], before: nil, slot: slot))
        }
        return ObjectChange(id: objectID, version: 0, values: attributeValues, originalValues: nil,
                            changedAttributes: .all(attributeValues.count), relations: relations, storedToOnes: [])
    }

    /// The object's net changes since it was last saved or fetched: a key changed and changed
    /// back is left out (so a save never writes a stale value over another writer's).
    final func updateChange() -> ObjectChange {
        let original = committedAttributes ?? attributeValues
        var changed = PropertyMask()
        for i in attributeValues.indices where changedProperties.contains(i) && original[i] != attributeValues[i] { changed.insert(i) }
        let attributeCount = attributeValues.count
        var relations: [RelationChange] = []
        var storedToOnes: [ObjectID??] = []
        for (slot, value) in relationValues.enumerated() {
            if let target = value.loadedToOneTarget {
                if storedToOnes.isEmpty { storedToOnes = Array(repeating: nil, count: relationValues.count) }
                storedToOnes[slot] = target
            }
            guard changedProperties.contains(attributeCount + slot) else { continue }
            let before = committedRelations[slot]
            if let before, before.propertyValue == value.propertyValue { continue }
            relations.append(RelationChange(slot: slot, kind: relationKind(value, before: before, slot: slot)))
        }
        return ObjectChange(id: objectID, version: rowVersion, values: attributeValues, originalValues: original,
                            changedAttributes: changed, relations: relations, storedToOnes: storedToOnes)
    }

    /// The object as a delete, with its last saved values.
    final func deletion() -> ObjectDeletion {
        ObjectDeletion(id: objectID, version: rowVersion, values: committedAttributes ?? attributeValues)
    }

    /// Takes the values, relationships and version of `row` (a read, or the row a save left).
    /// Errors of values that did not decode are kept for validation to report.
    final func take(_ row: RowSnapshot) {
        attributeValues = row.attributes
        relationValues = row.relationValues
        rowVersion = row.version
        for (slot, error) in row.errors { valueErrors[slot] = error }
    }

    private func relationKind(_ value: RelationValue, before: RelationValue?, slot: Int) -> RelationChange.Kind {
        switch value {
        case .toOne(let target):
            return .toOne(target: target?.objectID, original: before?.loadedToOneTarget)
        case .toOneID(let target):
            return .toOne(target: target, original: before?.loadedToOneTarget)
        case .toMany(let members):
            let original: [ObjectID]? = if case .toMany(let committed)? = before { committed.map(\.objectID) } else { nil }
            return .toMany(members: members.map(\.objectID), original: original)
        case .unloaded:
            // Only a new object's to-many can be unread here (a changed relationship is loaded).
            return entity.relationships[slot].isToMany ? .toMany(members: [], original: nil) : .toOne(target: nil, original: nil)
        }
    }
}

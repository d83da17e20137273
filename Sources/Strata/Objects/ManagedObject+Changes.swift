/// An object's storage as a small API: its changes as values (what a save or a push hands on,
/// see ``ChangeBatch``), taking a row, reverting, and forgetting changes once saved.
extension ManagedObject {
    /// The object as an insert: every attribute and relationship.
    final func insertChange() -> ObjectChange {
        let relations = relationValues.indices.map { slot in
            RelationChange(slot: slot, kind: relationKind(relationValues[slot], before: nil, slot: slot))
        }
        return ObjectChange(id: objectID, version: 0, values: attributeValues, originalValues: nil,
                            changedAttributes: .all(attributeValues.count), relations: relations)
    }

    /// The object's net changes since it was last saved or fetched: a key changed and changed
    /// back is left out (so a save never writes a stale value over another writer's).
    final func updateChange() -> ObjectChange {
        let values = attributeValues
        let original = committedAttributes ?? values
        var changed = PropertyMask()
        for i in values.indices where changedProperties.contains(i) && original[i] != values[i] { changed.insert(i) }
        let attributeCount = values.count
        var relations: [RelationChange] = []
        var storedToOnes = StoredToOnes()
        for (slot, value) in relationValues.enumerated() {
            if let target = value.loadedToOneTarget { storedToOnes.set(target, at: slot, of: relationValues.count) }
            guard changedProperties.contains(attributeCount + slot) else { continue }
            let before = committedRelations[slot]
            if let before, before.propertyValue == value.propertyValue { continue }
            relations.append(RelationChange(slot: slot, kind: relationKind(value, before: before, slot: slot)))
        }
        return ObjectChange(id: objectID, version: rowVersion, values: values, originalValues: original,
                            changedAttributes: changed, relations: relations, storedToOnes: storedToOnes)
    }

    /// The object as a delete, with its last saved values.
    final func deletion() -> ObjectDeletion {
        ObjectDeletion(id: objectID, version: rowVersion, values: committedAttributes ?? attributeValues)
    }

    /// Forgets change tracking after a save or rollback: the current values become the saved ones.
    final func clearChanges() {
        committedAttributes = nil
        committedRelations.removeAll()
        changedProperties.removeAll()
        lifecycle.hasChanges = false
        for (slot, error) in valueErrors where error.code != .undecodableValue { valueErrors[slot] = nil }
    }

    /// Puts back the values and relationships as last saved or fetched and forgets the change
    /// tracking. Returns the loaded to-ones restored, with the targets they replace (their
    /// partners' inverse sides must follow).
    final func revertChanges() -> [(index: Int, target: ObjectID?, previous: ObjectID?)] {
        if let committed = committedAttributes { attributeValues = committed }
        var restored: [(index: Int, target: ObjectID?, previous: ObjectID?)] = []
        for (index, value) in committedRelations {
            let previous = relationValues[index].loadedToOneTarget
            relationValues[index] = value
            if let target = value.loadedToOneTarget { restored.append((index, target, previous ?? nil)) }
        }
        clearChanges()
        return restored
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

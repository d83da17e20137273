/// Storage writes an undo or a redo makes: values put back as edits (tracked against the last
/// saved values, as any edit is), without inverse maintenance — the group holds both sides of
/// every relationship it changed — and without telling the undo manager again.
extension ManagedObject {
    /// Puts back `value` as attribute `slot`'s value.
    final func restoreAttribute(_ value: PropertyValue, at slot: Int) {
        guard slot < attributeValues.count else { return }
        willChange()
        attributeValues[slot] = value
        valueErrors[slot] = nil
        changedProperties.insert(slot)
    }

    /// Puts back `value` as relationship `slot`'s state, with the hints the context keeps
    /// for loaded relationships.
    final func restoreRelation(_ value: RelationValue, at slot: Int) {
        guard slot < relationValues.count else { return }
        let recordsUndo = lifecycle.recordsUndo
        lifecycle.recordsUndo = false   // not recorded again
        relationWillChange(slot)
        lifecycle.recordsUndo = recordsUndo
        relationValues[slot] = value
        switch value {
        case .toMany(let members):
            for member in members { noteHeld(member, through: slot) }
        case .toOne(let target?):
            storageOwner?.notePointer(to: target.objectID, holder: self, relationship: slot)
        case .toOneID(let target?):
            storageOwner?.notePointer(to: target, holder: self, relationship: slot)
        case .toOne(nil), .toOneID(nil), .unloaded:
            break
        }
    }

    /// Forgets the changes that an undo made equal to the saved values again; returns whether
    /// any change is left.
    final func dropChangesEqualToSaved() -> Bool {
        let attributeCount = attributeValues.count
        if let committed = committedAttributes {
            for slot in 0..<attributeCount where changedProperties.contains(slot) && committed[slot] == attributeValues[slot] && valueErrors[slot] == nil {
                changedProperties.remove(slot)
            }
        }
        for slot in relationValues.indices where changedProperties.contains(attributeCount + slot) {
            guard let committed = committedRelations[slot], committed.propertyValue == relationValues[slot].propertyValue else { continue }
            changedProperties.remove(attributeCount + slot)
            committedRelations[slot] = nil
        }
        return !changedProperties.isEmpty
    }
}

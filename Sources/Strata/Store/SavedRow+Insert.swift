extension SavedRow {
    /// The row `outcome`'s save wrote for the inserted object of `change`; `nil` when the store
    /// may have written something the change does not hold: an entity with derived attributes
    /// (the store computes them).
    ///
    /// For example (inside the engine):
    /// ```swift
    /// if let row = SavedRow(inserted: change, outcome: outcome) { changes.insertedRows[id] = row }
    /// ```
    init?(inserted change: ObjectChange, outcome: SaveOutcome) {
        let entity = change.id.entity
        guard !entity.hasDerivedAttributes, change.values.count == entity.attributes.count else { return nil }
        var toOnes = [ObjectID??](repeating: nil, count: entity.relationships.count)
        for (slot, relationship) in entity.relationships.enumerated() where !relationship.isToMany {
            if case .foreignKey = relationship.storage { toOnes[slot] = .some(nil) }
        }
        for relation in change.relations where relation.slot < toOnes.count && toOnes[relation.slot] != nil {
            if case .toOne(let target, _) = relation.kind { toOnes[relation.slot] = .some(target.map(outcome.savedID)) }
        }
        self.init(version: 1, attributes: PropertyValue.storedForms(change.values), toOnes: toOnes)
    }
}

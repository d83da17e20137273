/// The row a store save wrote for an inserted object, as reading it back from SQLite would
/// give it: attributes in their stored forms and in entity order, the to-ones the row stores
/// (targets by their IDs after the save), the row version. A ``ChangeSet`` carries one per
/// inserted object (``ChangeSet/insertedRows``), so a context merging the change set fills its
/// faults of the new objects without reading them.
///
/// For example (inside the engine):
/// ```swift
/// if let row = changes.insertedRows[id] { fill(fault, with: RowSnapshot(row, id: id)) }
/// ```
struct SavedRow: Sendable {
    /// The row version.
    var version: Int64
    /// Every attribute's stored value, in entity order.
    var attributes: [PropertyValue]
    /// Per relationship slot: the target of a to-one the row stores (`.some(nil)`: none);
    /// `nil` for the others (to-manys, to-ones stored on the other side).
    var toOnes: [ObjectID??]

    /// This row after a later save changed `values` (keys by name, as a ``ChangeSet`` reports
    /// them) of an object of `entity` and gave it `version`; `nil` when a key is not the
    /// entity's.
    func applying(_ values: [String: PropertyValue], of entity: EntityDescription, version: Int64?) -> SavedRow? {
        var row = self
        for (key, value) in values {
            switch entity.propertyIndex[key] {
            case .attribute(let i)?:
                row.attributes[i] = value.storedForm
            case .relationship(let r)?:
                guard row.toOnes[r] != nil else { continue }   // not stored in the row
                if case .objectID(let target) = value { row.toOnes[r] = .some(target) } else { row.toOnes[r] = .some(nil) }
            case nil:
                return nil
            }
        }
        row.version = version ?? self.version + 1
        return row
    }
}

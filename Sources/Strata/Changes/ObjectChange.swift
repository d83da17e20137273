/// One inserted or updated object in a ``ChangeBatch``: its values after the change, what
/// they were before, and which of them the change is about.
///
/// Attribute values are in the entity's order (`entity.attributes`); relationships appear in
/// ``relations`` only when they changed (all of them for an insert).
///
/// For example:
/// ```swift
/// for change in batch.updated where change.changedKeys.contains("title") {
///     print(change.oldValue(forKey: "title"), "→", change.value(forKey: "title"))
/// }
/// ```
public struct ObjectChange: Sendable {
    // The fields live in one immutable box: a change is copied on its way through a save (the
    // store's passes over the batch, the outcome, the change set, a parent's push), and a copy
    // of the box is one retain where a copy of the fields was six (about 200 instructions).
    private let fields: Fields

    /// The object: temporary for an insert unless it was given a permanent ID early.
    public var id: ObjectID { fields.id }
    /// The row version the change was made against (optimistic locking); 0 for an insert.
    public var version: Int64 { fields.version }
    /// Every attribute's value after the change, in entity order.
    public var values: [PropertyValue] { fields.values }
    /// Every attribute's value as last saved or fetched; `nil` for an insert.
    public var originalValues: [PropertyValue]? { fields.originalValues }
    /// Which attributes the change writes (all of them for an insert).
    var changedAttributes: PropertyMask { fields.changedAttributes }
    /// The relationships the change writes, in entity order.
    public var relations: [RelationChange] { fields.relations }
    /// For an update: every loaded to-one's target by relationship slot (`nil` where unknown),
    /// changed or not, for a policy that writes the whole object. Empty for an insert, whose
    /// ``relations`` list every relationship.
    var storedToOnes: StoredToOnes { fields.storedToOnes }

    init(id: ObjectID, version: Int64, values: [PropertyValue], originalValues: [PropertyValue]?,
         changedAttributes: PropertyMask, relations: [RelationChange], storedToOnes: StoredToOnes = StoredToOnes()) {
        fields = Fields(id: id, version: version, values: values, originalValues: originalValues,
                        changedAttributes: changedAttributes, relations: relations, storedToOnes: storedToOnes)
    }

    /// The stored fields of an ``ObjectChange`` (see its `fields`).
    private final class Fields: Sendable {
        let id: ObjectID
        let version: Int64
        let values: [PropertyValue]
        let originalValues: [PropertyValue]?
        let changedAttributes: PropertyMask
        let relations: [RelationChange]
        let storedToOnes: StoredToOnes

        init(id: ObjectID, version: Int64, values: [PropertyValue], originalValues: [PropertyValue]?,
             changedAttributes: PropertyMask, relations: [RelationChange], storedToOnes: StoredToOnes) {
            self.id = id
            self.version = version
            self.values = values
            self.originalValues = originalValues
            self.changedAttributes = changedAttributes
            self.relations = relations
            self.storedToOnes = storedToOnes
        }
    }

    /// Whether this is an insert.
    public var isInsert: Bool { originalValues == nil }

    /// What consecutive changes of an edit of many objects share: the entity, the number of
    /// values and the changed attributes. Changes of one shape without relationship changes
    /// name the same keys and write the same columns.
    struct AttributeShape: Equatable {
        let entity: Int
        let count: Int
        let attributes: PropertyMask
    }

    /// The change's ``AttributeShape``.
    var attributeShape: AttributeShape { AttributeShape(entity: id.entity.index, count: values.count, attributes: changedAttributes) }

    /// Whether the attribute at `slot` (its position in `entity.attributes`) is written.
    public func changesAttribute(at slot: Int) -> Bool { changedAttributes.contains(slot) }

    /// The relationship change at `slot` (its position in `entity.relationships`), if any.
    public func relation(at slot: Int) -> RelationChange? {
        if isInsert { return slot < relations.count ? relations[slot] : nil }
        return relations.first { $0.slot == slot }
    }

    /// The to-one target the object's row stores at relationship `slot` after the change:
    /// `.some(nil)` for none, `nil` when the change does not know it (not loaded).
    func toOneTarget(at slot: Int) -> ObjectID?? {
        if isInsert { return slot < relations.count ? relations[slot].toOneTarget : nil }
        if let changed = relation(at: slot) { return changed.toOneTarget }
        return storedToOnes[slot]
    }

    /// The changed keys with their new values, as a ``ChangeSet`` reports an update.
    var changedValues: [String: PropertyValue] {
        let entity = id.entity
        // One or two keys (most edits) are made at their size, not grown from empty: growing
        // to two keys reallocates twice and hashes each key again (String hashing is most of
        // the cost), about 3 000 instructions against 1 000.
        if relations.isEmpty, let i = changedAttributes.onlyMember, i < values.count {
            return [entity.attributes[i].name: values[i]]
        }
        if relations.isEmpty, let (i, j) = changedAttributes.onlyPair, j < values.count {
            return [entity.attributes[i].name: values[i], entity.attributes[j].name: values[j]]
        }
        var result: [String: PropertyValue] = [:]
        for i in values.indices where changedAttributes.contains(i) { result[entity.attributes[i].name] = values[i] }
        for relation in relations { result[entity.relationships[relation.slot].name] = relation.value }
        return result
    }

    /// Every attribute's value and each listed relationship's, by name (for an insert: the
    /// whole object).
    public var keyedValues: [String: PropertyValue] {
        let entity = id.entity
        var result: [String: PropertyValue] = [:]
        for (i, attribute) in entity.attributes.enumerated() where i < values.count { result[attribute.name] = values[i] }
        for relation in relations { result[entity.relationships[relation.slot].name] = relation.value }
        return result
    }

    /// The names of the attributes and relationships the change writes.
    public var changedKeys: [String] {
        let entity = id.entity
        return entity.attributes.indices.filter(changedAttributes.contains).map { entity.attributes[$0].name }
            + relations.map { entity.relationships[$0.slot].name }
    }

    /// The value of `key` after the change (relationships as `.objectID` / `.objectIDs`);
    /// `.null` for a key the entity does not have.
    public func value(forKey key: String) -> PropertyValue {
        switch id.entity.propertyIndex[key] {
        case .attribute(let i)?: values[i]
        case .relationship(let r)?: relation(at: r)?.value ?? .null
        case nil: .null
        }
    }

    /// The value of `key` before the change: as last saved or fetched (`.null` for an insert).
    public func oldValue(forKey key: String) -> PropertyValue {
        switch id.entity.propertyIndex[key] {
        case .attribute(let i)?: originalValues?[i] ?? .null
        case .relationship(let r)?: relation(at: r)?.originalValue ?? .null
        case nil: .null
        }
    }
}

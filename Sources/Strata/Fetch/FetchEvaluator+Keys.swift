extension FetchEvaluator {
    /// The names of the entity's own properties (attributes and relationships) that the
    /// request's predicate, text search and sort keys read: a change to no other key of an
    /// object can change whether it matches or where it sorts. A key path through a to-one
    /// names its first relationship (values read across it are the destination's; a change
    /// there is the destination's change, not this object's).
    ///
    /// For example:
    /// ```swift
    /// let evaluator = try FetchRequest<Note>(predicate: try ObjectPredicate("folder.name == %@", "A"),
    ///                                        sortKeys: [SortKey("title")]).evaluator(in: context)
    /// evaluator.readKeys   // ["folder", "title"]
    /// ```
    public var readKeys: Set<String> {
        var keys = Set<String>()
        for key in plan.sortKeys { Self.insertRootKey(of: key.keyPath, into: &keys) }
        if let predicate = plan.predicate { Self.insertKeys(of: predicate.root, into: &keys) }
        if let search = plan.search { keys.formUnion(search.keys) }
        return keys
    }

    /// The attribute each sort key reads, in order, when every sort key is one of the entity's
    /// own attributes (no key path through a relationship, no count or aggregate); nil
    /// otherwise. Then an object's sort values are those attributes' values, so they can be
    /// known from a change set's new values without reading the object.
    ///
    /// For example:
    /// ```swift
    /// let evaluator = try FetchRequest<Note>(sortKeys: [SortKey("position")]).evaluator(in: context)
    /// evaluator.sortAttributeNames   // ["position"]
    /// ```
    public var sortAttributeNames: [String]? {
        sortAttributeSlots.map { slots in zip(slots, plan.sortKeys).map { $1.keyPath.endEntity.attributeNames[$0] } }
    }

    /// The attribute slot each sort key reads on objects of `entity` (the request's entity or a
    /// subentity: inherited attributes keep their slots), when every key is one of the object's
    /// own attributes (``sortAttributeNames``) and none is transformable; `nil` otherwise.
    func attributeSlots(in entity: EntityDescription) -> [Int]? {
        guard let slots = sortAttributeSlots,
              slots.allSatisfy({ $0 < entity.attributes.count && entity.attributeTransformers[$0] == nil }) else { return nil }
        return slots
    }

    /// The slot of the attribute each sort key reads, when every key is one of the entity's own
    /// attributes: what ``sortAttributeNames`` and ``attributeSlots(in:)`` are read from.
    private var sortAttributeSlots: [Int]? {
        var slots: [Int] = []
        slots.reserveCapacity(plan.sortKeys.count)
        for key in plan.sortKeys {
            guard key.keyPath.steps.isEmpty, case .attribute(let slot) = key.keyPath.terminal else { return nil }
            slots.append(slot)
        }
        return slots
    }

    private static func insertKeys(of node: CompiledPredicate.Node, into keys: inout Set<String>) {
        switch node {
        case .constant:
            return
        case .not(let inner):
            insertKeys(of: inner, into: &keys)
        case .and(let nodes), .or(let nodes):
            for node in nodes { insertKeys(of: node, into: &keys) }
        case .test(let keyPath, _):
            insertRootKey(of: keyPath, into: &keys)
        case .compare(let comparison):
            insertRootKey(of: comparison.lhs, into: &keys)
            insertRootKey(of: comparison.rhs, into: &keys)
        case .quantified(_, let steps, let owner, let relationshipIndex, _):
            if let first = steps.first {
                keys.insert(first.source.relationshipNames[first.relationshipIndex])
            } else {
                keys.insert(owner.relationshipNames[relationshipIndex])
            }
        }
    }

    private static func insertRootKey(of keyPath: ResolvedKeyPath, into keys: inout Set<String>) {
        if let first = keyPath.steps.first {
            keys.insert(first.source.relationshipNames[first.relationshipIndex])
            return
        }
        switch keyPath.terminal {
        case .attribute(let i): keys.insert(keyPath.endEntity.attributeNames[i])
        case .toOneID(let r), .count(let r), .subqueryCount(let r, _), .aggregate(_, let r, _):
            keys.insert(keyPath.endEntity.relationshipNames[r])
        case .selfID: return
        }
    }
}

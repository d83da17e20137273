/// Reads the new objects of a store save that a context is merging as a fetch request's
/// predicate and sort keys see them, from the save's inserts, without filling the objects: an
/// observer placing thousands of new rows (a fetched results controller following an import)
/// learns whether and where each goes while the objects stay faults until something shows them.
///
/// The values are the ones the object would hold once filled from the same inserts (see
/// `ObjectContext.fireFault`): its attributes from the save, with the change set's later
/// updates of it, in the forms a read of its row gives. A predicate or sort key that reads a
/// relationship or a transformable attribute reads it from the object, which fills it then.
///
/// For example (an observer inside the package, while the context tells it about `changes`):
/// ```swift
/// let reader = context.mergedInsertReader(for: changes, evaluator: evaluator)
/// if let (matches, values) = reader?.evaluate(book) { … }
/// ```
package final class MergedInsertReader {
    private let context: ObjectContext
    // The parts of the whole change set being merged that a read looks at (a piece's saves and
    // updates are the whole set's), held apart so that a read touches no other.
    private let inserted: Set<ObjectID>
    private let deleted: Set<ObjectID>
    private let updated: [ObjectID: [String: PropertyValue]]
    /// The save's inserts when the set holds one save (an import's batch), else `lookup` finds them.
    private let onlySave: SavedInserts?
    private let lookup: SavedInsertsLookup?
    private let evaluator: FetchEvaluator
    /// Whether the evaluator has a predicate (without one, every object of the kind matches).
    private let hasPredicate: Bool
    // The last entity asked about (objects come entity by entity): whether its objects can be
    // read here, the attribute slots of its sort keys when each key is one such attribute, and
    // the keys the only save gave its objects.
    private var entity: EntityDescription?
    private var entityReadable = false
    private var sortSlots: [Int]?
    private var keyBlock: SavedInserts.KeyBlock?

    init(context: ObjectContext, merging: ChangeSet, lookup: SavedInsertsLookup?, evaluator: FetchEvaluator) {
        self.context = context
        self.inserted = merging.inserted
        self.deleted = merging.deleted
        self.updated = merging.updated
        self.onlySave = merging.savedInserts.count == 1 ? merging.savedInserts[0] : nil
        self.lookup = merging.savedInserts.count == 1 ? nil : (lookup ?? SavedInsertsLookup(merging.savedInserts))
        self.evaluator = evaluator
        self.hasPredicate = evaluator.plan.predicate != nil
    }

    /// Whether the new object `id` of the merged save passes the evaluator's predicate, and its
    /// sort values, when the context holds no object for it: read from the save's inserts, and
    /// no object is made (unless the predicate or a sort key reads a relationship or a
    /// transformable attribute). `nil` when the context holds an object for `id` (use
    /// ``evaluate(_:)-(ManagedObject)``) or the values cannot be read from the inserts.
    package func evaluate(_ id: ObjectID) -> (matches: Bool, sortValues: [PropertyValue])? {
        guard context.held(id) == nil else { return nil }
        return read(id)
    }

    /// Whether `object` (a new object of the merged save, held by the context as a fault never
    /// read) passes the evaluator's predicate, and its sort values; `nil` when they cannot be
    /// read from the save's inserts (the object was read, its row is not there, the entity
    /// derives attributes, or an ancestor may hold unsaved changes of it): then read the object.
    package func evaluate(_ object: ManagedObject) -> (matches: Bool, sortValues: [PropertyValue])? {
        guard object.lifecycle.isFault, object.rowVersion == 0 else { return nil }
        return read(object.objectID)
    }

    private func read(_ id: ObjectID) -> (matches: Bool, sortValues: [PropertyValue])? {
        let entity = id.entity
        if entity !== self.entity {
            self.entity = entity
            entityReadable = !entity.hasDerivedAttributes && !context.source.ancestorsMayHavePending(entity)
            sortSlots = evaluator.attributeSlots(in: entity)
            keyBlock = onlySave?.blocks[entity.index]
        }
        guard entityReadable, inserted.contains(id), deleted.isEmpty || !deleted.contains(id) else { return nil }
        let found: ObjectChange?
        if let onlySave {
            found = keyBlock.flatMap { onlySave.change(for: id, in: $0) }
        } else {
            found = lookup?.inserts(of: id)?.change(for: id)
        }
        guard let insert = found, insert.values.count == entity.attributes.count else { return nil }
        let updates = updated.isEmpty ? nil : updated[id]
        if !hasPredicate, let sortSlots, entity.isKind(of: evaluator.entity) {
            // Every sort key an attribute of the object's own: read in place, no subject.
            // (One key, the common list, as a literal: `map` took the standard library's slow
            // path to make its array, about a third of a read.)
            if sortSlots.count == 1 {
                return (true, [MergedInsertSubject.storedValue(of: insert, updates: updates, slot: sortSlots[0], entity: entity)])
            }
            return (true, sortSlots.map { MergedInsertSubject.storedValue(of: insert, updates: updates, slot: $0, entity: entity) })
        }
        let subject = MergedInsertSubject(context: context, id: id, insert: insert, updates: updates)
        guard evaluator.matches(subject: subject) else { return (false, []) }
        return (true, sortSlots.map { $0.map(subject.predicateAttribute) } ?? evaluator.sortValues(of: subject))
    }
}

/// A new object as ``MergedInsertReader`` shows it to a predicate and sort keys: attributes
/// from the save's insert (later updates first), relationships and transformable attributes
/// from the context's object for it (made and filled then).
private struct MergedInsertSubject: PredicateSubject {
    let context: ObjectContext
    /// The object's ID after the save (the insert names it by its ID before).
    let id: ObjectID
    let insert: ObjectChange
    let updates: [String: PropertyValue]?

    var predicateEntity: EntityDescription { id.entity }
    var predicateObjectID: ObjectID { id }
    private var object: ManagedObject { context.object(with: id) }

    func predicateAttribute(_ index: Int) -> PropertyValue {
        let entity = id.entity
        guard entity.attributeTransformers[index] == nil else { return object.predicateAttribute(index) }
        return Self.storedValue(of: insert, updates: updates, slot: index, entity: entity)
    }

    /// Attribute `slot` (not transformable) as a read of the row gives it: the set's later
    /// update of it, else the insert's value, in stored form.
    static func storedValue(of insert: ObjectChange, updates: [String: PropertyValue]?, slot: Int, entity: EntityDescription) -> PropertyValue {
        let value = updates.flatMap { $0[entity.attributes[slot].name] } ?? insert.values[slot]
        return value.storedForm
    }

    func predicateToOne(_ index: Int) -> (any PredicateSubject)? { object.predicateToOne(index) }
    func predicateToMany(_ index: Int) -> [any PredicateSubject] { object.predicateToMany(index) }
}

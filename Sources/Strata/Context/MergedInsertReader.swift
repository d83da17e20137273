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
    /// The whole change set being merged (a piece's saves and updates are its).
    private let merging: ChangeSet
    private let lookup: SavedInsertsLookup?
    private let evaluator: FetchEvaluator
    /// The last entity asked about (objects come entity by entity): whether its objects can be
    /// read here, and the attribute slots of its sort keys when each key is one such attribute.
    private var entity: EntityDescription?
    private var entityReadable = false
    private var sortSlots: [Int]?

    init(context: ObjectContext, merging: ChangeSet, lookup: SavedInsertsLookup?, evaluator: FetchEvaluator) {
        self.context = context
        self.merging = merging
        self.lookup = lookup
        self.evaluator = evaluator
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
        }
        guard entityReadable, merging.inserted.contains(id), merging.deleted.isEmpty || !merging.deleted.contains(id) else { return nil }
        let inserts = merging.savedInserts.count == 1 ? merging.savedInserts[0] : lookup?.inserts(of: id)
        guard let insert = inserts?.change(for: id), insert.values.count == entity.attributes.count else { return nil }
        let subject = MergedInsertSubject(context: context, id: id, insert: insert, updates: merging.updated.isEmpty ? nil : merging.updated[id])
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
        let value = updates.flatMap { $0[entity.attributes[index].name] } ?? insert.values[index]
        return value.storedForm
    }

    func predicateToOne(_ index: Int) -> (any PredicateSubject)? { object.predicateToOne(index) }
    func predicateToMany(_ index: Int) -> [any PredicateSubject] { object.predicateToMany(index) }
}

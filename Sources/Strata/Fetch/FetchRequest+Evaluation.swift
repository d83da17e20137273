extension FetchRequest {
    /// Compiles the request's predicate and sort keys against `model`, for evaluating objects
    /// in memory exactly as a fetch would (same predicate semantics, same order as the SQL
    /// `ORDER BY`, ties broken by object ID).
    ///
    /// - Throws: `.invalidRequest` or `.malformedPredicate` for a request that does not fit the model.
    ///
    /// For example:
    /// ```swift
    /// let evaluator = try request.evaluator(for: coordinator.model)
    /// if evaluator.matches(note) { print(evaluator.sortValues(of: note)) }
    /// ```
    public func evaluator(for model: ObjectModel) throws(StrataError) -> FetchEvaluator {
        FetchEvaluator(plan: try FetchPlan(self, entity: try entity(in: model), model: model))
    }

    /// The entity the request fetches in `model`: the one named by ``entityName``, or else the
    /// entity of the result class.
    func entity(in model: ObjectModel) throws(StrataError) -> EntityDescription {
        if let name = entityName {
            guard let entity = model.entity(named: name) else {
                throw StrataError(.invalidRequest, "The model has no entity named \(name).", entity: name)
            }
            return entity
        }
        guard let entity = model.entity(for: Result.self) else {
            throw StrataError(.invalidRequest, "FetchRequest<\(Result.self)> needs an entityName: \(Result.self) is not an entity class of this model.")
        }
        return entity
    }
}

/// A fetch request compiled for in-memory use: predicate evaluation, the request's sort values
/// of an object, and comparison of sort values, ordering exactly as the store does.
///
/// Use it on the queue of the context the objects belong to (reading values may fire faults).
///
/// For example:
/// ```swift
/// let evaluator = try FetchRequest<Note>(sortKeys: [SortKey("title")]).evaluator(in: context)
/// let values = evaluator.sortValues(of: note)                  // [.string("Hello")]
/// let order = evaluator.compare(values, note.objectID, evaluator.sortValues(of: other), other.objectID)
/// ```
public struct FetchEvaluator {
    let plan: FetchPlan

    /// The entity the request fetches.
    public var entity: EntityDescription { plan.entity }
    /// How many sort keys the request has.
    public var sortKeyCount: Int { plan.sortKeys.count }

    /// Whether `object` is of the request's entity (or one of its subentities) and passes its predicate.
    ///
    /// For example:
    /// ```swift
    /// let visible = notes.filter(evaluator.matches)
    /// ```
    public func matches(_ object: ManagedObject) -> Bool {
        object.entity.isKind(of: plan.entity) && plan.matches(object)
    }

    /// The value of each sort key for `object` (`.null` where a to-one on the way is nil).
    ///
    /// For example:
    /// ```swift
    /// let cached = evaluator.sortValues(of: note)
    /// ```
    public func sortValues(of object: ManagedObject) -> [PropertyValue] {
        plan.sortKeys.map { $0.keyPath.value(of: object) }
    }

    /// ``matches(_:)`` for any subject (a new object read from a merged save, say).
    func matches(subject: some PredicateSubject) -> Bool {
        guard subject.predicateEntity.isKind(of: plan.entity) else { return false }
        return plan.predicate == nil || plan.matches(subject)   // (no existential made without a predicate)
    }

    /// ``sortValues(of:)`` for any subject.
    func sortValues(of subject: some PredicateSubject) -> [PropertyValue] {
        plan.sortKeys.map { $0.keyPath.value(of: subject) }
    }

    /// Compares one sort key's values: negative, zero or positive as `a` sorts before, with or
    /// after `b` under key `index` (its direction and string comparison included).
    ///
    /// For example:
    /// ```swift
    /// let sameSection = evaluator.compareValue(a[0], b[0], key: 0) == 0
    /// ```
    public func compareValue(_ a: PropertyValue, _ b: PropertyValue, key index: Int) -> Int {
        let key = plan.sortKeys[index]
        let order = key.compareValues(a, b)
        return key.ascending ? order : -order
    }

    /// Compares two objects by their sort values, then by ID (permanent IDs by primary key,
    /// temporary IDs after them), as a fetch orders them: negative, zero or positive.
    ///
    /// For example:
    /// ```swift
    /// let before = evaluator.compare(aValues, a.objectID, bValues, b.objectID) < 0
    /// ```
    public func compare(_ a: [PropertyValue], _ aID: ObjectID, _ b: [PropertyValue], _ bID: ObjectID) -> Int {
        for index in plan.sortKeys.indices {
            let order: Int
            // Two integers (positions, counts, indexes: the common sort key) compare directly,
            // as SQLite compares them, without the general comparator's conversions.
            if case .integer(let x) = a[index], case .integer(let y) = b[index] {
                let ascending = x < y ? -1 : (x == y ? 0 : 1)
                order = plan.sortKeys[index].ascending ? ascending : -ascending
            } else {
                order = compareValue(a[index], b[index], key: index)
            }
            if order != 0 { return order }
        }
        return Self.compareIDs(aID, bID)
    }

    /// The tie-break of fetches: permanent IDs by primary key, then temporary IDs in creation order.
    ///
    /// For example:
    /// ```swift
    /// FetchEvaluator.compareIDs(saved.objectID, unsaved.objectID)   // -1
    /// ```
    public static func compareIDs(_ a: ObjectID, _ b: ObjectID) -> Int {
        if a.isTemporary != b.isTemporary { return a.isTemporary ? 1 : -1 }
        return a.key < b.key ? -1 : (a.key == b.key ? 0 : 1)
    }

    /// Whether `a` sorts before `b` as a fetch with this request orders them.
    ///
    /// For example:
    /// ```swift
    /// let sorted = notes.sorted(by: evaluator.areInIncreasingOrder)
    /// ```
    public func areInIncreasingOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        plan.areInIncreasingOrder(a, b)
    }
}

import Foundation

extension ObjectContext {
    /// While this context tells its observers about `changes`, a merged store save whose rows
    /// it takes (the faults of the new objects fill from them): the least and the greatest value
    /// of attribute `key` among the objects of `entity` (or its subentities) it inserted, as the
    /// store holds them, read from the saves' inserts without reading SQLite.
    /// For numeric and date attributes only. `nil` when that cannot be told: outside such a
    /// merge, when a new object's row is not among the saves' inserts, when the context holds
    /// one of them loaded (its own view counts), when an ancestor may hold unsaved changes of
    /// the entity, when a value is nil or of another kind, or when `key` is not such an attribute.
    ///
    /// A fetched results controller showing a window passes over an import that appends to its
    /// list with two comparisons (its new objects all sort after the window's last result),
    /// instead of fetching the window again. One pass over the inserts, a few instructions each.
    ///
    /// For example (an observer inside the package):
    /// ```swift
    /// if let (least, greatest) = context.mergedInsertsRange(of: changes, kindOf: book, key: "position") { … }
    /// ```
    package func mergedInsertsRange(of changes: ChangeSet, kindOf entity: EntityDescription, key: String) -> (least: PropertyValue, greatest: PropertyValue)? {
        checkQueue()
        // The set being merged (or one of its pieces: they carry its commits), not another one
        // an observer published meanwhile (an unsaved report carries no saves' inserts).
        guard let merging = mergingChanges, merging.commits == changes.commits, !changes.savedInserts.isEmpty,
              !source.ancestorsMayHavePending(entity) else { return nil }
        var range = NumericRange()
        // The saves' inserts of the kind (a piece's saves hold more than the piece: a wider
        // range, so the answer stays safe).
        var slots = AttributeSlotCache(key: key)
        for inserts in changes.savedInserts {
            for i in inserts.changes.indices where inserts.changes[i].id.entity.isKind(of: entity) {
                guard let slot = slots.slot(in: inserts.changes[i].id.entity), slot < inserts.changes[i].values.count,
                      range.take(inserts.changes[i].values[slot]) else { return nil }
            }
        }
        // Every new object of the kind has its row there, and its later changes in the set count.
        var coverage = SavedInsertsCoverage(changes.savedInserts, lookup: changes.savedInserts.count == merging.savedInserts.count ? mergingLookup : nil)
        let updates = changes.updated.isEmpty ? nil : changes.updated
        for id in changes.inserted where id.entity.isKind(of: entity) {
            guard coverage.covers(id) else { return nil }
            if let value = updates?[id]?[key], !range.take(value) { return nil }
        }
        // A new object this context holds loaded is seen as it holds it.
        if registry.count < changes.inserted.count {
            for (id, object) in registry.entries where !object.lifecycle.isFault && changes.inserted.contains(id) { return nil }
        } else {
            for id in changes.inserted { if let object = registry[id], !object.lifecycle.isFault { return nil } }
        }
        // Stored forms keep order, so the extremes' stored forms are the stored extremes.
        guard let (least, greatest) = range.bounds, let storedLeast = least.storedForm(transformer: nil),
              let storedGreatest = greatest.storedForm(transformer: nil) else { return nil }
        return (storedLeast, storedGreatest)
    }

    /// While this context tells its observers about `changes` (a merged store save whose rows
    /// it takes, or a piece of one): a reader of its new objects' values from the saves'
    /// inserts, as `evaluator` sees them, for placing them without filling them
    /// (``MergedInsertReader``). `nil` outside such a merge.
    ///
    /// For example (an observer inside the package):
    /// ```swift
    /// let reader = context.mergedInsertReader(for: changes, evaluator: evaluator)
    /// ```
    package func mergedInsertReader(for changes: ChangeSet, evaluator: FetchEvaluator) -> MergedInsertReader? {
        checkQueue()
        guard let merging = mergingChanges, merging.commits == changes.commits, !merging.savedInserts.isEmpty else { return nil }
        catchUpPermanentIDs()   // so that an object held under a temporary ID is found by its new one
        return MergedInsertReader(context: self, merging: merging, lookup: mergingLookup, evaluator: evaluator)
    }

    /// An object standing for `id`, a row a merge deleted that this context held no object for:
    /// an object of the entity's class marked deleted and not in the context, as a merge leaves
    /// the objects it deletes. It is not registered and reads nothing (its values are the
    /// class's initial ones). For an observer that must hand a deleted row's object over (a
    /// fetched results controller reporting the delete of a row it never made an object for).
    ///
    /// For example (an observer inside the package):
    /// ```swift
    /// let gone = context.deletedObject(for: id)   // gone.isDeleted == true
    /// ```
    package func deletedObject(for id: ObjectID) -> ManagedObject {
        checkQueue()
        let object = constructFetched(id.entity, ObjectCreation(objectID: id, attributeValues: [],
                                                                relationValues: [], isFault: true))
        object.lifecycle.isDeleted = true
        return object
    }
}

/// The least and greatest of values of one numeric kind (integers, doubles or dates), kept as
/// plain numbers: a few instructions a value.
private struct NumericRange {
    private enum Kind { case none, integer, double, date }
    private var kind = Kind.none
    private var lowInteger = Int64.max, highInteger = Int64.min
    private var low = Double.infinity, high = -Double.infinity

    /// Takes `value` in; false when it is not of the kind taken so far (or not numeric).
    mutating func take(_ value: PropertyValue) -> Bool {
        switch value {
        case .integer(let x):
            guard kind == .integer || kind == .none else { return false }
            kind = .integer
            if x < lowInteger { lowInteger = x }
            if x > highInteger { highInteger = x }
        case .double(let x):
            guard kind == .double || kind == .none, !x.isNaN else { return false }
            kind = .double
            take(x)
        case .date(let date):
            guard kind == .date || kind == .none else { return false }
            kind = .date
            take(date.timeIntervalSinceReferenceDate)
        default:
            return false
        }
        return true
    }

    private mutating func take(_ x: Double) {
        if x < low { low = x }
        if x > high { high = x }
    }

    /// The least and greatest values taken; nil when none was.
    var bounds: (PropertyValue, PropertyValue)? {
        switch kind {
        case .none: nil
        case .integer: (.integer(lowInteger), .integer(highInteger))
        case .double: (.double(low), .double(high))
        case .date: (.date(Date(timeIntervalSinceReferenceDate: low)), .date(Date(timeIntervalSinceReferenceDate: high)))
        }
    }
}

/// The slot of one attribute in the entities objects come from, resolved once per entity
/// (objects come entity by entity): `nil` where its saved value is not what the store holds.
private struct AttributeSlotCache {
    let key: String
    private var entity: EntityDescription?
    private var cached: Int?

    init(key: String) { self.key = key }

    mutating func slot(in entity: EntityDescription) -> Int? {
        if entity !== self.entity {
            self.entity = entity
            cached = nil
            if !entity.hasDerivedAttributes, case .attribute(let slot)? = entity.propertyIndex[key], entity.attributes[slot].type != .transformable {
                cached = slot
            }
        }
        return cached
    }
}

/// Whether a save among a change set's ``ChangeSet/savedInserts`` gave an object its key: the
/// key blocks of the last entity asked about, kept (objects come entity by entity).
private struct SavedInsertsCoverage {
    private let save: SavedInserts?
    private let lookup: SavedInsertsLookup?
    private var entityIndex = -1
    /// The keys the save gave the last entity asked about (empty if none).
    private var keys: Range<Int64> = 0 ..< 0

    init(_ saves: [SavedInserts], lookup: SavedInsertsLookup?) {
        self.save = saves.count == 1 ? saves[0] : nil
        self.lookup = saves.count > 1 ? (lookup ?? SavedInsertsLookup(saves)) : nil
    }

    /// Whether a save gave `id` its key (a block of keys is one entity's inserts).
    mutating func covers(_ id: ObjectID) -> Bool {
        guard !id.isTemporary else { return false }
        if let lookup { return lookup.inserts(of: id) != nil }
        guard let save else { return false }
        if id.entity.index != entityIndex {
            entityIndex = id.entity.index
            keys = save.blocks[entityIndex]?.keys ?? 0 ..< 0
        }
        return keys.contains(id.key)
    }
}

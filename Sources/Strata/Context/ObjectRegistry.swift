/// The objects a context holds, one instance per ID (uniquing), and the temporary IDs it has
/// seen become permanent, so that an ID named before the change still finds its object.
///
/// Queue-confined to its context, like the objects it holds. A part of ``ObjectContext``: the
/// context decides when objects come and go; the registry only keeps them findable.
///
/// For example (inside the engine):
/// ```swift
/// registry[object.objectID] = object
/// let same = registry.object(named: temporaryID)   // after the ID became permanent too
/// ```
struct ObjectRegistry {
    /// One object per ID.
    private(set) var objects: [ObjectID: ManagedObject] = [:]
    /// How many registered objects each entity has (by entity index; missing: none), so a
    /// merge can tell in O(entities) that no object could hold what it would otherwise walk
    /// every registered object for. Kept by the subscript's setter, through which every
    /// registration and removal goes (`rename` and `move` too).
    private var countsByEntity: [Int] = []
    /// Temporary IDs that became permanent here: a child may still name an object by its old
    /// temporary ID until it learns the new one.
    private(set) var permanentIDByTemporary: [ObjectID: ObjectID] = [:]

    /// The object registered under exactly `id`.
    subscript(id: ObjectID) -> ManagedObject? {
        get { objects[id] }
        set {
            if let newValue {
                let previous = objects.updateValue(newValue, forKey: id)
                if previous !== newValue {
                    count(newValue, +1)
                    if let previous { count(previous, -1) }
                }
            } else if let removed = objects.removeValue(forKey: id) {
                count(removed, -1)
            }
        }
    }

    /// Whether an object of the entity at `index` is registered.
    func holds(entityAt index: Int) -> Bool {
        countsByEntity.indices.contains(index) && countsByEntity[index] > 0
    }

    private mutating func count(_ object: ManagedObject, _ change: Int) {
        let index = object.entity.index
        guard index >= 0 else { return }   // entities of a model are numbered from 0
        if index >= countsByEntity.count { countsByEntity += [Int](repeating: 0, count: index + 1 - countsByEntity.count) }
        countsByEntity[index] += change
    }

    /// The ID that names `id`'s object now: its permanent ID once a temporary one became permanent.
    func current(_ id: ObjectID) -> ObjectID {
        id.isTemporary ? (permanentIDByTemporary[id] ?? id) : id
    }

    /// The object `id` names, following a temporary ID to its permanent one.
    func object(named id: ObjectID) -> ManagedObject? {
        objects[id] ?? (id.isTemporary ? permanentIDByTemporary[id].flatMap { objects[$0] } : nil)
    }

    /// Every registered object.
    var all: Dictionary<ObjectID, ManagedObject>.Values { objects.values }
    /// How many objects are registered.
    var count: Int { objects.count }

    /// Makes room for `additional` more objects in one growth.
    mutating func reserve(additional: Int) { objects.reserveCapacity(objects.count + additional) }

    /// Unregisters every object and returns them.
    mutating func removeAll() -> [ManagedObject] {
        defer {
            objects.removeAll()
            countsByEntity.removeAll()
        }
        return Array(objects.values)
    }

    /// The entries of `mapping` whose temporary ID an object is registered under, found from
    /// whichever side is smaller (a main context holding a screenful of objects is told the new
    /// IDs of a whole import).
    func registeredEntries(of mapping: [ObjectID: ObjectID]) -> [ObjectID: ObjectID] {
        guard objects.count < mapping.count else { return mapping.filter { objects[$0.key] != nil } }
        var held: [ObjectID: ObjectID] = [:]
        for id in objects.keys where id.isTemporary {
            if let permanent = mapping[id] { held[id] = permanent }
        }
        return held
    }

    /// The entries of `mapping` not remembered already.
    func unknown(_ mapping: [ObjectID: ObjectID]) -> [ObjectID: ObjectID] {
        mapping.filter { permanentIDByTemporary[$0.key] != $0.value }
    }

    /// Remembers new permanent IDs, so that their temporary IDs keep finding the objects.
    mutating func remember(_ mapping: [ObjectID: ObjectID]) {
        permanentIDByTemporary.merge(mapping) { _, latest in latest }
    }

    /// Forgets every temporary ID (nothing will name objects by them any more).
    mutating func forgetTemporaryIDs() { permanentIDByTemporary.removeAll() }

    /// Re-files a just-saved object under the permanent ID the store gave it.
    mutating func rename(_ object: ManagedObject, from temporary: ObjectID, to permanent: ObjectID) {
        self[temporary] = nil
        object.objectID = permanent
        self[permanent] = object
        permanentIDByTemporary[temporary] = permanent
    }

    /// Moves the object registered under `temporary` to `permanent`, renaming it, and
    /// returns it with the instance that stood for `permanent` already (a fault made when
    /// someone named the new ID before this registry learned it), which is unregistered.
    mutating func move(from temporary: ObjectID, to permanent: ObjectID) -> (moved: ManagedObject, displaced: ManagedObject?)? {
        guard let object = objects[temporary] else { return nil }
        self[temporary] = nil
        object.objectID = permanent
        let earlier = objects[permanent]
        self[permanent] = object
        return (object, earlier === object ? nil : earlier)
    }
}

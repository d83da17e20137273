/// The objects a context holds, one instance per ID (uniquing), and the temporary IDs it has
/// seen become permanent, so that an ID named before the change still finds its object.
///
/// Queue-confined to its context, like the objects it holds. A part of ``ObjectContext``: the
/// context decides when objects come and go; the registry only keeps them findable. Not a
/// value to copy: copies share their tables (the context holds its one registry).
///
/// For example (inside the engine):
/// ```swift
/// registry[object.objectID] = object
/// let same = registry.object(named: temporaryID)   // after the ID became permanent too
/// ```
struct ObjectRegistry {
    /// One table of objects per entity and kind of ID (at ``tableIndex(_:)``): finding an
    /// object by its ID is an index and a page, not a hash of the ID (``KeyedTable``).
    private var objects = KeyedTables<ManagedObject>()
    /// Temporary IDs that became permanent here, by entity (at `entity index + 1`) and
    /// temporary key: a child may still name an object by its old temporary ID until it learns
    /// the new one. Kept by key like the objects: a save renames each object it inserted.
    private var permanentIDs = KeyedTables<ObjectID>()

    /// How many objects are registered.
    var count: Int { objects.count }
    /// How many temporary IDs are remembered as having become permanent.
    var rememberedCount: Int { permanentIDs.count }

    /// The object registered under exactly `id`.
    subscript(id: ObjectID) -> ManagedObject? {
        get { objects.value(at: Self.tableIndex(id), key: id.key) }
        set { objects.set(newValue, at: Self.tableIndex(id), key: id.key, making: KeyedTable(entity: id.entity, isTemporary: id.isTemporary)) }
    }

    /// Whether an object of the entity at `index` is registered (a merge can tell in
    /// O(entities) that no object could hold what it would otherwise walk every registered
    /// object for).
    func holds(entityAt index: Int) -> Bool {
        let first = 2 * (index + 1)
        return (first...first + 1).contains { (objects.table(at: $0)?.count ?? 0) > 0 }
    }

    /// Where `id`'s table of objects is (an entity not in a model yet, numbered -1, first;
    /// temporary IDs after permanent ones).
    @inline(__always)
    private static func tableIndex(_ id: ObjectID) -> Int {
        2 * (id.entity.index + 1) + (id.isTemporary ? 1 : 0)
    }

    /// The ID that names `id`'s object now: its permanent ID once a temporary one became permanent.
    func current(_ id: ObjectID) -> ObjectID {
        id.isTemporary ? (permanentID(of: id) ?? id) : id
    }

    /// The permanent ID temporary `id` became here, if it is remembered.
    func permanentID(of id: ObjectID) -> ObjectID? {
        permanentIDs.value(at: id.entity.index + 1, key: id.key)
    }

    /// Remembers that temporary `id` became `permanent`.
    private mutating func remember(_ id: ObjectID, as permanent: ObjectID) {
        permanentIDs.set(permanent, at: id.entity.index + 1, key: id.key, making: KeyedTable(entity: id.entity, isTemporary: true))
    }

    /// The object `id` names, following a temporary ID to its permanent one.
    func object(named id: ObjectID) -> ManagedObject? {
        self[id] ?? (id.isTemporary ? permanentID(of: id).flatMap { self[$0] } : nil)
    }

    /// Every registered object (a snapshot: the registry may change while it is walked).
    var all: [ManagedObject] {
        var all: [ManagedObject] = []
        all.reserveCapacity(count)
        forEachObject { all.append($0) }
        return all
    }

    /// Calls `body` with every registered object, walking the tables themselves instead of a
    /// snapshot (no array of every object is made): `body` must not register or unregister
    /// objects, nor run user code that might.
    func forEachObject(_ body: (ManagedObject) -> Void) {
        objects.forEachTable { table in table.forEach { _, object in body(object) } }
    }

    /// Every registered object with the ID it is registered under (a snapshot).
    var entries: [(id: ObjectID, object: ManagedObject)] {
        var entries: [(id: ObjectID, object: ManagedObject)] = []
        entries.reserveCapacity(count)
        objects.forEachTable { table in
            table.forEach { key, object in entries.append((ObjectID(entity: table.entity, key: key, isTemporary: table.isTemporary), object)) }
        }
        return entries
    }

    /// The IDs registered of the entities whose indexes `entities` holds.
    func ids(ofEntities entities: Set<Int>) -> Set<ObjectID> {
        var ids: Set<ObjectID> = []
        objects.forEachTable { table in
            guard entities.contains(table.entity.index) else { return }
            table.forEach { key, _ in ids.insert(ObjectID(entity: table.entity, key: key, isTemporary: table.isTemporary)) }
        }
        return ids
    }

    /// Unregisters every object and returns them.
    mutating func removeAll() -> [ManagedObject] {
        defer { objects.removeAll() }
        return all
    }

    /// The entries of `mapping` whose temporary ID an object is registered under, found from
    /// whichever side is smaller (a main context holding a screenful of objects is told the new
    /// IDs of a whole import).
    func registeredEntries(of mapping: [ObjectID: ObjectID]) -> [ObjectID: ObjectID] {
        guard count < mapping.count else { return mapping.filter { self[$0.key] != nil } }
        var held: [ObjectID: ObjectID] = [:]
        objects.forEachTable { table in
            guard table.isTemporary else { return }
            table.forEach { key, _ in
                let id = ObjectID(entity: table.entity, key: key, isTemporary: true)
                if let permanent = mapping[id] { held[id] = permanent }
            }
        }
        return held
    }

    /// The entries of `mapping` not remembered already.
    func unknown(_ mapping: [ObjectID: ObjectID]) -> [ObjectID: ObjectID] {
        mapping.filter { permanentID(of: $0.key) != $0.value }
    }

    /// Remembers new permanent IDs, so that their temporary IDs keep finding the objects.
    mutating func remember(_ mapping: [ObjectID: ObjectID]) {
        for (temporary, permanent) in mapping { remember(temporary, as: permanent) }
    }

    /// Forgets every temporary ID (nothing will name objects by them any more).
    mutating func forgetTemporaryIDs() { permanentIDs.removeAll() }

    /// Re-files a just-saved object under the permanent ID the store gave it.
    mutating func rename(_ object: ManagedObject, from temporary: ObjectID, to permanent: ObjectID) {
        self[temporary] = nil
        object.objectID = permanent
        self[permanent] = object
        remember(temporary, as: permanent)
    }

    /// Moves the object registered under `temporary` to `permanent`, renaming it, and
    /// returns it with the instance that stood for `permanent` already (a fault made when
    /// someone named the new ID before this registry learned it), which is unregistered.
    mutating func move(from temporary: ObjectID, to permanent: ObjectID) -> (moved: ManagedObject, displaced: ManagedObject?)? {
        guard let object = self[temporary] else { return nil }
        self[temporary] = nil
        object.objectID = permanent
        let earlier = self[permanent]
        self[permanent] = object
        return (object, earlier === object ? nil : earlier)
    }
}

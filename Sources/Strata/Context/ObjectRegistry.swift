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
    /// One table per entity and kind of ID (at `2 × (entity index + 1)`, +1 for temporary IDs):
    /// finding an object by its ID is an index and a page, not a hash of the ID
    /// (``KeyedTable``).
    private var tables: [KeyedTable<ManagedObject>?] = []
    /// The same tables, not counted (`tables` holds them): a lookup reads one without a retain
    /// and a release.
    private var unretainedTables: [Unmanaged<KeyedTable<ManagedObject>>?] = []
    /// How many objects are registered.
    private(set) var count = 0
    /// Temporary IDs that became permanent here, by entity (at `entity index + 1`) and
    /// temporary key: a child may still name an object by its old temporary ID until it learns
    /// the new one. Kept by key like the objects: a save renames each object it inserted.
    private var permanentIDs: [KeyedTable<ObjectID>?] = []
    /// How many temporary IDs are remembered as having become permanent.
    private(set) var rememberedCount = 0

    /// The object registered under exactly `id`.
    subscript(id: ObjectID) -> ManagedObject? {
        get {
            let index = Self.tableIndex(id)
            guard index < unretainedTables.count, let table = unretainedTables[index] else { return nil }
            return table._withUnsafeGuaranteedRef { $0[id.key] }
        }
        set {
            let index = Self.tableIndex(id)
            let table: Unmanaged<KeyedTable<ManagedObject>>
            if index < unretainedTables.count, let existing = unretainedTables[index] {
                table = existing
            } else {
                guard newValue != nil else { return }
                if index >= tables.count {
                    tables += [KeyedTable<ManagedObject>?](repeating: nil, count: index + 1 - tables.count)
                    unretainedTables += [Unmanaged<KeyedTable<ManagedObject>>?](repeating: nil, count: index + 1 - unretainedTables.count)
                }
                let made = KeyedTable<ManagedObject>(entity: id.entity, isTemporary: id.isTemporary)
                tables[index] = made
                table = Unmanaged.passUnretained(made)
                unretainedTables[index] = table
            }
            count += table._withUnsafeGuaranteedRef { table in
                let before = table.count
                _ = table.set(newValue, at: id.key)
                return table.count - before
            }
        }
    }

    /// Whether an object of the entity at `index` is registered (a merge can tell in
    /// O(entities) that no object could hold what it would otherwise walk every registered
    /// object for).
    func holds(entityAt index: Int) -> Bool {
        let first = 2 * (index + 1)
        return (first...first + 1).contains { $0 >= 0 && $0 < tables.count && (tables[$0]?.count ?? 0) > 0 }
    }

    /// Where `id`'s table is in ``tables`` (an entity not in a model yet, numbered -1, first).
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
        let index = id.entity.index + 1
        guard index >= 0, index < permanentIDs.count, let table = permanentIDs[index] else { return nil }
        return table[id.key]
    }

    /// Remembers that temporary `id` became `permanent`.
    private mutating func remember(_ id: ObjectID, as permanent: ObjectID) {
        let index = id.entity.index + 1
        guard index >= 0 else { return }
        if index >= permanentIDs.count { permanentIDs += [KeyedTable<ObjectID>?](repeating: nil, count: index + 1 - permanentIDs.count) }
        let table: KeyedTable<ObjectID>
        if let existing = permanentIDs[index] {
            table = existing
        } else {
            table = KeyedTable(entity: id.entity, isTemporary: true)
            permanentIDs[index] = table
        }
        let before = table.count
        _ = table.set(permanent, at: id.key)
        rememberedCount += table.count - before
    }

    /// The object `id` names, following a temporary ID to its permanent one.
    func object(named id: ObjectID) -> ManagedObject? {
        self[id] ?? (id.isTemporary ? permanentID(of: id).flatMap { self[$0] } : nil)
    }

    /// Every registered object (a snapshot: the registry may change while it is walked).
    var all: [ManagedObject] {
        var objects: [ManagedObject] = []
        objects.reserveCapacity(count)
        for case let table? in tables { table.forEach { _, object in objects.append(object) } }
        return objects
    }

    /// Calls `body` with every registered object, walking the tables themselves instead of a
    /// snapshot (no array of every object is made): `body` must not register or unregister
    /// objects, nor run user code that might.
    func forEachObject(_ body: (ManagedObject) -> Void) {
        for case let table? in tables { table.forEach { _, object in body(object) } }
    }

    /// Every registered object with the ID it is registered under (a snapshot).
    var entries: [(id: ObjectID, object: ManagedObject)] {
        var entries: [(id: ObjectID, object: ManagedObject)] = []
        entries.reserveCapacity(count)
        for case let table? in tables {
            table.forEach { key, object in entries.append((ObjectID(entity: table.entity, key: key, isTemporary: table.isTemporary), object)) }
        }
        return entries
    }

    /// The IDs registered of the entities whose indexes `entities` holds.
    func ids(ofEntities entities: Set<Int>) -> Set<ObjectID> {
        var ids: Set<ObjectID> = []
        for case let table? in tables where entities.contains(table.entity.index) {
            table.forEach { key, _ in ids.insert(ObjectID(entity: table.entity, key: key, isTemporary: table.isTemporary)) }
        }
        return ids
    }

    /// Unregisters every object and returns them.
    mutating func removeAll() -> [ManagedObject] {
        defer {
            unretainedTables.removeAll()
            tables.removeAll()
            count = 0
        }
        return all
    }

    /// The entries of `mapping` whose temporary ID an object is registered under, found from
    /// whichever side is smaller (a main context holding a screenful of objects is told the new
    /// IDs of a whole import).
    func registeredEntries(of mapping: [ObjectID: ObjectID]) -> [ObjectID: ObjectID] {
        guard count < mapping.count else { return mapping.filter { self[$0.key] != nil } }
        var held: [ObjectID: ObjectID] = [:]
        for case let table? in tables where table.isTemporary {
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
    mutating func forgetTemporaryIDs() {
        permanentIDs.removeAll()
        rememberedCount = 0
    }

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

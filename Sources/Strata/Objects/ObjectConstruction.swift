#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The object a context is constructing on this thread, so that its `@Attribute` and
/// `@Relationship` wrappers learn their storage slots as they are initialised (no lookup by
/// key on every access) and, for an insert, hand over their initial values (so that
/// `@Attribute("created") var created = Date()` stamps each new object).
///
/// It lives in a thread-local slot only for the duration of one synchronous `init` call.
@usableFromInline
final class ObjectConstruction {
    // Its state is `@exclusivity(unchecked)`: a construction is used by one thread at a time
    // (it sits in that thread's slot for one synchronous `init`, then with its context on the
    // context's queue), and the runtime's access checks cost a few percent of an insert.
    @exclusivity(unchecked) private(set) var entity: EntityDescription
    /// Whether the wrappers' initial values are wanted (inserts only).
    @exclusivity(unchecked) @usableFromInline private(set) var collectsDefaults: Bool
    /// Initial values by attribute slot.
    @exclusivity(unchecked) @usableFromInline var defaults: [(slot: Int, value: PropertyValue)] = []
    @exclusivity(unchecked) private var attributeCursor = 0
    @exclusivity(unchecked) private var relationshipCursor = 0

    private init(entity: EntityDescription, collectsDefaults: Bool) {
        self.entity = entity
        self.collectsDefaults = collectsDefaults
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The construction in progress on this thread, if any (none while a model is built),
    /// unretained: the wrappers' initialisers use it through `_withUnsafeGuaranteedRef`, so a
    /// property's set-up costs no retain and release of the record (five pairs for an object
    /// with five properties). `make` keeps the record alive for the whole initialiser.
    @usableFromInline static var unretainedCurrent: Unmanaged<ObjectConstruction>? {
        guard let raw = pthread_getspecific(key) else { return nil }
        return Unmanaged<ObjectConstruction>.fromOpaque(raw)
    }

    /// Runs `body` with no construction installed on this thread (a key-path probe made or
    /// read inside an object's initialiser must not take that object's slots).
    static func outside<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let previous = pthread_getspecific(key)
        guard previous != nil else { return try body() }
        pthread_setspecific(key, nil)
        defer { pthread_setspecific(key, previous) }
        return try body()
    }

    /// Constructs an object of `entity`'s class with a construction installed, reusing
    /// `spare` (when not nil) — a record this function returned before, kept by the caller on
    /// its queue — instead of allocating one (and its defaults array) per object. Returns the
    /// record to keep for the next call; for an insert (`collectsDefaults`), its ``defaults``
    /// are the new object's initial values. The caller holds no record while this runs, so a
    /// construction nested in an initialiser gets a fresh one.
    static func make(_ entity: EntityDescription, _ creation: consuming ObjectCreation, collectsDefaults: Bool = false,
                     reusing spare: ObjectConstruction?) -> (ManagedObject, ObjectConstruction) {
        assert(entity === creation.objectID.entity, "an object is made of its ID's entity")
        let construction: ObjectConstruction
        if let reused = spare {
            // Objects of one entity in a row (a fetch, an import) set nothing they share.
            if reused.entity !== entity { reused.entity = entity }
            reused.collectsDefaults = collectsDefaults
            if !reused.defaults.isEmpty { reused.defaults.removeAll(keepingCapacity: true) }
            reused.attributeCursor = 0
            reused.relationshipCursor = 0
            construction = reused
        } else {
            construction = ObjectConstruction(entity: entity, collectsDefaults: collectsDefaults)
        }
        let previous = pthread_getspecific(key)
        pthread_setspecific(key, Unmanaged.passUnretained(construction).toOpaque())
        // The creation is handed over, not copied (a copy retains its four references).
        let object = entity.managedClass.init(consume creation)
        pthread_setspecific(key, previous)
        return (object, construction)   // `construction` outlives the initialiser: returned
    }

    /// The slot of the next `@Attribute` wrapper (declaration order), checked against its key.
    @usableFromInline func nextAttributeSlot(_ key: String) -> Int {
        defer { attributeCursor += 1 }
        let names = entity.attributeNames
        if attributeCursor < names.count, names[attributeCursor] == key { return attributeCursor }
        if case .attribute(let i)? = entity.propertyIndex[key] { return i }
        return -1
    }

    /// The slot of the next `@Relationship` wrapper (declaration order), checked against its key.
    @usableFromInline func nextRelationshipSlot(_ key: String) -> Int {
        defer { relationshipCursor += 1 }
        let names = entity.relationshipNames
        if relationshipCursor < names.count, names[relationshipCursor] == key { return relationshipCursor }
        if case .relationship(let i)? = entity.propertyIndex[key] { return i }
        return -1
    }

    /// Records a wrapper's initial value for the object being inserted.
    @usableFromInline func collectDefault<V>(_ value: V, slot: Int) {
        guard let conversion = entity.attributeConversions[slot] else { return }
        let transformer = entity.attributeTransformers[slot]
        defaults.append((slot, (try? conversion.encode(value, transformer: transformer)) ?? .null))
    }
}

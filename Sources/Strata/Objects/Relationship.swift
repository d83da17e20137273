import OrderedCollections

/// Declares a relationship on a `ManagedObject` subclass, with an explicit key and inverse.
///
/// The property's type says the cardinality: `T?` is to-one, `Set<T>` is to-many, `[T]` is
/// an ordered to-many. Setting one side updates the inverse at once.
///
/// For example:
/// ```swift
/// final class Folder: ManagedObject {
///     @Relationship("notes", inverse: "folder", deleteRule: .cascade) var notes: Set<Note>
/// }
/// final class Note: ManagedObject {
///     @Relationship("folder", inverse: "notes") var folder: Folder?
/// }
/// ```
///
/// `renamedFrom:` names the relationship's key in an older model (see docs/migration.md):
/// ```swift
/// @Relationship("parent", inverse: "notes", renamedFrom: "folder") var parent: Folder?
/// ```
@propertyWrapper
public struct Relationship<Value> {
    // An object's wrapper holds only its slot (as `@Attribute`'s does): the rest is the same
    // for every object of a class and is in its entity's tables.
    @usableFromInline var slot: Int
    /// The key, inverse, delete rule and conversion, for a wrapper of no constructed object
    /// (a model's prototype, a key-path probe).
    @usableFromInline let declaration: RelationshipDeclaration?

    /// A to-one relationship (`var folder: Folder?`). A non-optional one must be set before save.
    @inlinable
    public init<T: ManagedObject>(_ key: String, inverse: String, deleteRule: DeleteRule = .nullify, optional: Bool = true, renamedFrom: String? = nil) where Value == T? {
        if let renamedFrom { PropertyRenames.record(key, formerName: renamedFrom) }
        self.init(key, inverse, deleteRule, optional, ToOneConversion<T>.self, construction: ObjectConstruction.unretainedCurrent)
    }

    /// A to-many relationship (`var notes: Set<Note>`).
    @inlinable
    public init<T: ManagedObject>(_ key: String, inverse: String, deleteRule: DeleteRule = .nullify, renamedFrom: String? = nil) where Value == Set<T> {
        if let renamedFrom { PropertyRenames.record(key, formerName: renamedFrom) }
        self.init(key, inverse, deleteRule, true, SetConversion<T>.self, construction: ObjectConstruction.unretainedCurrent)
    }

    /// An ordered to-many relationship (`var items: [Item]`).
    @inlinable
    public init<T: ManagedObject>(_ key: String, inverse: String, deleteRule: DeleteRule = .nullify, renamedFrom: String? = nil) where Value == [T] {
        if let renamedFrom { PropertyRenames.record(key, formerName: renamedFrom) }
        self.init(key, inverse, deleteRule, true, ArrayConversion<T>.self, construction: ObjectConstruction.unretainedCurrent)
    }

    /// `construction` is the thread's, read once by the caller: with one, the wrapper takes
    /// its slot; without (a prototype, a probe), it keeps its declaration.
    @usableFromInline
    init(_ key: String, _ inverse: String, _ deleteRule: DeleteRule, _ isOptional: Bool, _ conversion: any RelationshipConversion.Type,
         construction: Unmanaged<ObjectConstruction>?) {
        if let construction {
            self.slot = construction._withUnsafeGuaranteedRef { $0.nextRelationshipSlot(key) }
            self.declaration = nil
        } else {
            self.slot = -1
            self.declaration = RelationshipDeclaration(key: key, inverse: inverse, deleteRule: deleteRule, isOptional: isOptional, conversion: conversion)
        }
    }

    @available(*, unavailable, message: "@Relationship works only on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }  // programmer error: unavailable accessor
        set { preconditionFailure("unreachable") }  // programmer error: unavailable accessor
    }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Relationship<Value>>
    ) -> Value {
        @inline(__always) get {
            let slot = slot(object, storageKeyPath)
            if slot >= 0, !object.entity.relationshipIsToMany[slot], let target = object.toOne(at: slot) as? Value { return target }
            return conversion(object, slot, storageKeyPath).read(object, slot: slot, as: Value.self)
        }
        @inline(__always) set {
            let slot = slot(object, storageKeyPath)
            guard slot >= 0 else { return }
            if !object.entity.relationshipIsToMany[slot], let target = newValue as? ManagedObject? {
                object.setToOne(target, at: slot)
                return
            }
            conversion(object, slot, storageKeyPath).write(newValue, to: object, slot: slot)
        }
    }

    @usableFromInline
    static func conversion<Object: ManagedObject>(_ object: Object, _ slot: Int, _ storage: ReferenceWritableKeyPath<Object, Relationship<Value>>) -> any RelationshipConversion.Type {
        if slot >= 0, let conversion = object.entity.relationshipConversions[slot] { return conversion }
        return object[keyPath: storage].declaration?.conversion ?? UnresolvedRelationship.self
    }

    @inlinable
    static func slot<Object: ManagedObject>(_ object: Object, _ storage: ReferenceWritableKeyPath<Object, Relationship<Value>>) -> Int {
        let cached = object[keyPath: storage].slot
        if cached >= 0 { return cached }
        guard let key = object[keyPath: storage].declaration?.key else { return -1 }   // constructed: its slot is final
        let slot = object.relationshipSlot(forKey: key)
        if slot >= 0 { object[keyPath: storage].slot = slot }
        return slot
    }
}

/// How a `@Relationship` wrapper reads and writes its Swift type.
@usableFromInline
protocol RelationshipConversion: SendableMetatype {
    static var destination: ManagedObject.Type { get }
    static var isToMany: Bool { get }
    static var isOrdered: Bool { get }
    static func read<V>(_ object: ManagedObject, slot: Int, as: V.Type) -> V
    static func write<V>(_ value: V, to object: ManagedObject, slot: Int)
}

@usableFromInline
enum ToOneConversion<T: ManagedObject>: RelationshipConversion {
    @usableFromInline static var destination: ManagedObject.Type { T.self }
    @usableFromInline static var isToMany: Bool { false }
    @usableFromInline static var isOrdered: Bool { false }
    @usableFromInline static func read<V>(_ object: ManagedObject, slot: Int, as: V.Type) -> V {
        let target = slot >= 0 ? object.toOne(at: slot) as? T : nil
        return target as! V  // programmer error: V is T? by the wrapper's initialiser
    }
    @usableFromInline static func write<V>(_ value: V, to object: ManagedObject, slot: Int) {
        object.setToOne(value as? T, at: slot)
    }
}

@usableFromInline
enum SetConversion<T: ManagedObject>: RelationshipConversion {
    @usableFromInline static var destination: ManagedObject.Type { T.self }
    @usableFromInline static var isToMany: Bool { true }
    @usableFromInline static var isOrdered: Bool { false }
    @usableFromInline static func read<V>(_ object: ManagedObject, slot: Int, as: V.Type) -> V {
        var set = Set<T>()
        if slot >= 0 {
            let objects = object.toMany(at: slot)
            set.reserveCapacity(objects.count)
            for case let typed as T in objects { set.insert(typed) }
        }
        return set as! V  // programmer error: V is Set<T> by the wrapper's initialiser
    }
    @usableFromInline static func write<V>(_ value: V, to object: ManagedObject, slot: Int) {
        guard let set = value as? Set<T> else { return }
        object.setToMany(OrderedSet(set.map { $0 as ManagedObject }), at: slot)
    }
}

@usableFromInline
enum ArrayConversion<T: ManagedObject>: RelationshipConversion {
    @usableFromInline static var destination: ManagedObject.Type { T.self }
    @usableFromInline static var isToMany: Bool { true }
    @usableFromInline static var isOrdered: Bool { true }
    @usableFromInline static func read<V>(_ object: ManagedObject, slot: Int, as: V.Type) -> V {
        let array: [T] = slot >= 0 ? object.toMany(at: slot).compactMap { $0 as? T } : []
        return array as! V  // programmer error: V is [T] by the wrapper's initialiser
    }
    @usableFromInline static func write<V>(_ value: V, to object: ManagedObject, slot: Int) {
        guard let array = value as? [T] else { return }
        object.setToMany(OrderedSet(array.map { $0 as ManagedObject }), at: slot)
    }
}

/// What the model builder reads from a `@Relationship` found by reflection.
protocol RelationshipWrapperDescribing {
    func relationshipDescription() -> RelationshipDescription
    var conversionType: (any RelationshipConversion.Type)? { get }
}

extension Relationship: RelationshipWrapperDescribing {
    var conversionType: (any RelationshipConversion.Type)? { declaration?.conversion }

    func relationshipDescription() -> RelationshipDescription {
        // A prototype always has its declaration (it is made outside any construction).
        let declaration = self.declaration ?? RelationshipDeclaration(key: "", inverse: "", deleteRule: .nullify, isOptional: true, conversion: UnresolvedRelationship.self)
        let conversion = declaration.conversion
        return RelationshipDescription(declaration.key, destination: conversion.destination.entityName, inverse: declaration.inverse,
                                isToMany: conversion.isToMany, isOrdered: conversion.isOrdered,
                                deleteRule: declaration.deleteRule, isOptional: declaration.isOptional)
    }
}

/// What a `@Relationship` declares, kept by a wrapper that belongs to no constructed object
/// (a model's prototype, a key-path probe).
@usableFromInline
final class RelationshipDeclaration: Sendable {
    @usableFromInline let key: String
    @usableFromInline let inverse: String
    @usableFromInline let deleteRule: DeleteRule
    @usableFromInline let isOptional: Bool
    @usableFromInline let conversion: any RelationshipConversion.Type

    @usableFromInline
    init(key: String, inverse: String, deleteRule: DeleteRule, isOptional: Bool, conversion: any RelationshipConversion.Type) {
        self.key = key
        self.inverse = inverse
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.conversion = conversion
    }
}

/// Stands in when a wrapper's entity has no conversion for it (an entity described in code
/// whose class is not the one the wrapper belongs to): reads give empty values.
enum UnresolvedRelationship: RelationshipConversion {
    static var destination: ManagedObject.Type { ManagedObject.self }
    static var isToMany: Bool { false }
    static var isOrdered: Bool { false }
    static func read<V>(_ object: ManagedObject, slot: Int, as: V.Type) -> V {
        if let empty = Optional<ManagedObject>.none as? V { return empty }
        if let empty = Set<ManagedObject>() as? V { return empty }
        return [ManagedObject]() as! V  // programmer error: a relationship wrapper's value is T?, Set<T> or [T]
    }
    static func write<V>(_ value: V, to object: ManagedObject, slot: Int) {}
}

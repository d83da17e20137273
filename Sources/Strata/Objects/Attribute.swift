public import Foundation
/// Declares a stored attribute on a `ManagedObject` subclass, with an explicit key.
///
/// Reads and writes go through the object's storage, so they fire faults and are tracked
/// as changes. The initial value is the default for newly inserted objects (evaluated per
/// insert, so `= Date()` stamps each object).
///
/// For example:
/// ```swift
/// final class Note: ManagedObject {
///     @Attribute("title") var title = ""
///     @Attribute("created") var created = Date()
///     @Attribute("uniqueIdentifier", .unique) var uniqueIdentifier = ""
///     @Attribute("metadata", transformer: .json) var metadata: [String: String] = [:]
/// }
/// ```
///
/// `renamedFrom:` names the attribute's key in an older model, so that opening a store written
/// with that model renames the column and keeps its values (see docs/migration.md):
/// ```swift
/// @Attribute("title", renamedFrom: "name") var title = ""
/// ```
@propertyWrapper
public struct Attribute<Value> {
    // An object's wrapper holds only its slot and its initial value: every object of a class
    // would hold the same key, options and conversion (56 bytes a wrapper), which its entity's
    // tables have by slot. A wrapper made outside an object's construction (the prototype a
    // model is built from, a key-path probe) keeps them in `declaration`.
    @usableFromInline var slot: Int
    @usableFromInline let initialValue: Value
    /// The key, options, transformer and conversion, for a wrapper of no constructed object.
    @usableFromInline let declaration: AttributeDeclaration?

    /// A plain attribute; `renamedFrom` is its key in an older model, if it was renamed.
    @inlinable
    public init(wrappedValue: Value, _ key: String, _ options: AttributeOptions = [], renamedFrom: String? = nil) where Value: AttributeConvertible {
        if let renamedFrom { PropertyRenames.record(key, formerName: renamedFrom) }
        let construction = ObjectConstruction.unretainedCurrent
        self.init(key: key, options: options, initialValue: wrappedValue, construction: construction,
                  conversion: ScalarConversion<Value>.self, transformerName: nil)
    }

    /// A transformable attribute: any `Codable` value, stored as bytes by the named transformer.
    @inlinable
    public init(wrappedValue: Value, _ key: String, _ options: AttributeOptions = [], transformer: TransformerName, renamedFrom: String? = nil) where Value: Codable & Sendable {
        if let renamedFrom { PropertyRenames.record(key, formerName: renamedFrom) }
        let construction = ObjectConstruction.unretainedCurrent
        self.init(key: key, options: options, initialValue: wrappedValue, construction: construction,
                  conversion: CodableConversion<Value>.self, transformerName: transformer)
    }

    @inlinable
    init(key: String, options: AttributeOptions, initialValue: Value, construction: Unmanaged<ObjectConstruction>?,
         conversion: any AttributeConversion.Type, transformerName: TransformerName?) {
        self.initialValue = initialValue
        guard let construction else {
            self.slot = -1
            self.declaration = AttributeDeclaration(key: key, options: options, transformerName: transformerName, conversion: conversion)
            return
        }
        self.declaration = nil
        let slot = construction._withUnsafeGuaranteedRef { $0.nextAttributeSlot(key) }
        self.slot = slot
        guard slot >= 0 else { return }
        construction._withUnsafeGuaranteedRef { construction in
            guard construction.collectsDefaults else { return }
            if transformerName == nil, let stored = Self.fastEncode(initialValue) {
                construction.defaults.append((slot, stored))
            } else {
                construction.collectDefault(initialValue, slot: slot)
            }
        }
    }

    @available(*, unavailable, message: "@Attribute works only on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }  // programmer error: unavailable accessor
        set { preconditionFailure("unreachable") }  // programmer error: unavailable accessor
    }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        @inline(__always) get {
            var slot = object[keyPath: storageKeyPath].slot
            if slot < 0 { slot = resolveSlot(object, storageKeyPath) }
            guard slot >= 0 else { return object[keyPath: storageKeyPath].initialValue }
            let stored = object.attributeValue(at: slot)
            if let value = fastDecode(stored) { return value }
            guard let conversion = object.entity.attributeConversions[slot] ?? object[keyPath: storageKeyPath].declaration?.conversion else {
                return object[keyPath: storageKeyPath].initialValue
            }
            return conversion.decode(stored, as: Value.self) ?? object[keyPath: storageKeyPath].initialValue
        }
        @inline(__always) set {
            var slot = object[keyPath: storageKeyPath].slot
            if slot < 0 { slot = resolveSlot(object, storageKeyPath) }
            guard slot >= 0 else { return }
            if !object.entity.attributeIsTransformable(at: slot), let stored = fastEncode(newValue) {
                object.setAttributeValue(stored, at: slot)
                return
            }
            object.setEncodedAttribute(newValue, at: slot, fallback: object[keyPath: storageKeyPath].declaration?.conversion)
        }
    }

    /// The Swift value of a stored scalar, when the type is one of the plain ones (in a
    /// specialised accessor every cast below is decided at compile time).
    @inlinable
    static func fastDecode(_ stored: PropertyValue) -> Value? {
        switch stored {
        case .string(let v): return v as? Value
        case .integer(let v):
            if let x = v as? Value { return x }
            if let x = Int(truncatingIfNeeded: v) as? Value { return x }
            if let x = Int32(truncatingIfNeeded: v) as? Value { return x }
            if let x = Int16(truncatingIfNeeded: v) as? Value { return x }
            return nil
        case .double(let v):
            if let x = v as? Value { return x }
            return Float(v) as? Value
        case .bool(let v): return v as? Value
        case .date(let v): return v as? Value
        case .data(let v): return v as? Value
        case .uuid(let v): return v as? Value
        case .url(let v): return v as? Value
        case .decimal(let v): return v as? Value
        case .transformed(let v): return v.value as? Value
        case .null, .objectID, .objectIDs: return nil
        }
    }

    /// The stored form of a plain value, or nil for other types (and for nil).
    @inlinable
    static func fastEncode(_ value: Value) -> PropertyValue? {
        if let v = value as? String { return .string(v) }
        if let v = value as? Int64 { return .integer(v) }
        if let v = value as? Int { return .integer(Int64(v)) }
        if let v = value as? Int32 { return .integer(Int64(v)) }
        if let v = value as? Int16 { return .integer(Int64(v)) }
        if let v = value as? Double { return .double(v) }
        if let v = value as? Float { return .double(Double(v)) }
        if let v = value as? Bool { return .bool(v) }
        if let v = value as? Date { return .date(v) }
        if let v = value as? Data { return .data(v) }
        if let v = value as? UUID { return .uuid(v) }
        if let v = value as? URL { return .url(v) }
        if let v = value as? Decimal { return .decimal(v) }
        return nil
    }

    @usableFromInline
    static func resolveSlot<Object: ManagedObject>(_ object: Object, _ storage: ReferenceWritableKeyPath<Object, Attribute<Value>>) -> Int {
        guard let key = object[keyPath: storage].declaration?.key else { return -1 }   // constructed: its slot is final
        let slot = object.attributeSlot(forKey: key)
        if slot >= 0 { object[keyPath: storage].slot = slot }
        return slot
    }
}

/// Options of an `@Attribute`.
///
/// For example:
/// ```swift
/// @Attribute("email", [.unique]) var email = ""
/// @Attribute("lastName", .indexed) var lastName = ""
/// @Attribute("body", .searchable) var body = ""
/// ```
public struct AttributeOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Values must be unique across the entity; an insert that collides is a conflict.
    public static let unique = AttributeOptions(rawValue: 1)
    /// The column gets an index.
    public static let indexed = AttributeOptions(rawValue: 2)
    /// The attribute (a `String`) is indexed for full-text search: its entity gets an SQLite
    /// FTS5 index, kept current in the same transaction as every save and batch request, and
    /// queried with ``FetchRequest/textSearch``.
    ///
    /// For example:
    /// ```swift
    /// @Attribute("body", .searchable) var body = ""
    /// ```
    public static let searchable = AttributeOptions(rawValue: 4)
}

/// What the model builder reads from an `@Attribute` found by reflection.
protocol AttributeWrapperDescribing {
    func attributeDescription() -> AttributeDescription
    var conversionType: (any AttributeConversion.Type)? { get }
}

extension Attribute: AttributeWrapperDescribing {
    var conversionType: (any AttributeConversion.Type)? { declaration?.conversion }

    func attributeDescription() -> AttributeDescription {
        // A prototype always has its declaration (it is made outside any construction).
        let declaration = self.declaration ?? AttributeDeclaration(key: "", options: [], transformerName: nil, conversion: ScalarConversion<String>.self)
        let conversion = declaration.conversion
        let transformerName = declaration.transformerName, options = declaration.options
        let transformer = transformerName.flatMap { conversion.makeTransformer($0) }
        var description = AttributeDescription(
            declaration.key, type: conversion.attributeType, isOptional: conversion.isOptional,
            defaultValue: (try? conversion.encode(initialValue, transformer: transformer)) ?? .null,
            isIndexed: options.contains(.indexed), isUnique: options.contains(.unique), transformerName: transformerName,
            isSearchable: options.contains(.searchable))
        description.transformer = transformer
        return description
    }
}

/// What an `@Attribute` declares besides its initial value, kept by a wrapper that belongs to
/// no constructed object (a model's prototype, a key-path probe). Constructed objects read the
/// same from their entity by slot.
@usableFromInline
final class AttributeDeclaration: Sendable {
    @usableFromInline let key: String
    @usableFromInline let options: AttributeOptions
    @usableFromInline let transformerName: TransformerName?
    @usableFromInline let conversion: any AttributeConversion.Type

    @usableFromInline
    init(key: String, options: AttributeOptions, transformerName: TransformerName?, conversion: any AttributeConversion.Type) {
        self.key = key
        self.options = options
        self.transformerName = transformerName
        self.conversion = conversion
    }
}

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
@propertyWrapper
public struct Attribute<Value> {
    let key: String
    let options: AttributeOptions
    let initialValue: Value
    let transformerName: TransformerName?
    /// Set only on the prototype the model is built from; objects read their entity's table.
    let conversion: (any AttributeConversion.Type)?
    var slot: Int

    /// A plain attribute.
    public init(wrappedValue: Value, _ key: String, _ options: AttributeOptions = []) where Value: AttributeConvertible {
        let construction = ObjectConstruction.current
        self.init(key: key, options: options, initialValue: wrappedValue, construction: construction,
                  conversion: construction == nil ? ScalarConversion<Value>.self : nil, transformerName: nil)
    }

    /// A transformable attribute: any `Codable` value, stored as bytes by the named transformer.
    public init(wrappedValue: Value, _ key: String, _ options: AttributeOptions = [], transformer: TransformerName) where Value: Codable & Sendable {
        let construction = ObjectConstruction.current
        self.init(key: key, options: options, initialValue: wrappedValue, construction: construction,
                  conversion: construction == nil ? CodableConversion<Value>.self : nil, transformerName: transformer)
    }

    private init(key: String, options: AttributeOptions, initialValue: Value, construction: ObjectConstruction?,
                 conversion: (any AttributeConversion.Type)?, transformerName: TransformerName?) {
        self.key = key
        self.options = options
        self.initialValue = initialValue
        self.conversion = conversion
        self.transformerName = transformerName
        guard let construction else { self.slot = -1; return }
        let slot = construction.nextAttributeSlot(key)
        self.slot = slot
        if construction.collectsDefaults, slot >= 0, let conversion = construction.entity.attributeConversions[slot] {
            let transformer = construction.entity.attributes[slot].transformer
            construction.defaults.append((slot, (try? conversion.encode(initialValue, transformer: transformer)) ?? .null))
        }
    }

    @available(*, unavailable, message: "@Attribute works only on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }  // programmer error: unavailable accessor
        set { preconditionFailure("unreachable") }  // programmer error: unavailable accessor
    }

    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        get {
            let wrapper = object[keyPath: storageKeyPath]
            let slot = wrapper.slot >= 0 ? wrapper.slot : resolveSlot(object, storageKeyPath)
            guard slot >= 0, let conversion = object.entity.attributeConversions[slot] ?? wrapper.conversion else { return wrapper.initialValue }
            return conversion.decode(object.attributeValue(at: slot), as: Value.self) ?? wrapper.initialValue
        }
        set {
            let wrapper = object[keyPath: storageKeyPath]
            let slot = wrapper.slot >= 0 ? wrapper.slot : resolveSlot(object, storageKeyPath)
            guard slot >= 0, let conversion = object.entity.attributeConversions[slot] ?? wrapper.conversion else { return }
            do {
                let stored = try conversion.encode(newValue, transformer: object.entity.attributes[slot].transformer)
                object.setAttributeValue(stored, at: slot)
            } catch {
                object.willAccess()
                object.valueErrors[slot] = error
            }
        }
    }

    private static func resolveSlot<Object: ManagedObject>(_ object: Object, _ storage: ReferenceWritableKeyPath<Object, Attribute<Value>>) -> Int {
        let slot = object.attributeSlot(forKey: object[keyPath: storage].key)
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
/// ```
public struct AttributeOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Values must be unique across the entity; an insert that collides is a conflict.
    public static let unique = AttributeOptions(rawValue: 1)
    /// The column gets an index.
    public static let indexed = AttributeOptions(rawValue: 2)
}

/// What the model builder reads from an `@Attribute` found by reflection.
protocol AttributeWrapperDescribing {
    func attributeDescription() -> AttributeDescription
    var conversionType: (any AttributeConversion.Type)? { get }
}

extension Attribute: AttributeWrapperDescribing {
    var conversionType: (any AttributeConversion.Type)? { conversion }

    func attributeDescription() -> AttributeDescription {
        let conversion = self.conversion ?? ScalarConversion<String>.self  // programmer error if nil: prototypes always carry one
        let transformer = transformerName.flatMap { conversion.makeTransformer($0) }
        var description = AttributeDescription(
            key, type: conversion.attributeType, isOptional: conversion.isOptional,
            defaultValue: (try? conversion.encode(initialValue, transformer: transformer)) ?? .null,
            isIndexed: options.contains(.indexed), isUnique: options.contains(.unique), transformerName: transformerName)
        description.transformer = transformer
        return description
    }
}

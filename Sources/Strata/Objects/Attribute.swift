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
    let conversion: any AttributeConversion.Type
    let transformerName: TransformerName?
    var slot = -1

    /// A plain attribute.
    public init(wrappedValue: Value, _ key: String, _ options: AttributeOptions = []) where Value: AttributeConvertible {
        self.init(key: key, options: options, initialValue: wrappedValue, conversion: ScalarConversion<Value>.self, transformerName: nil)
    }

    /// A transformable attribute: any `Codable` value, stored as bytes by the named transformer.
    public init(wrappedValue: Value, _ key: String, _ options: AttributeOptions = [], transformer: TransformerName) where Value: Codable & Sendable {
        self.init(key: key, options: options, initialValue: wrappedValue, conversion: CodableConversion<Value>.self, transformerName: transformer)
    }

    private init(key: String, options: AttributeOptions, initialValue: Value, conversion: any AttributeConversion.Type, transformerName: TransformerName?) {
        self.key = key
        self.options = options
        self.initialValue = initialValue
        self.conversion = conversion
        self.transformerName = transformerName
        if let collector = InsertionDefaults.current {
            let transformer = transformerName.flatMap { conversion.makeTransformer($0) }
            collector.values.append((try? conversion.encode(initialValue, transformer: transformer)) ?? .null)
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
            guard slot >= 0 else { return wrapper.initialValue }
            return wrapper.conversion.decode(object.attributeValue(at: slot), as: Value.self) ?? wrapper.initialValue
        }
        set {
            let wrapper = object[keyPath: storageKeyPath]
            let slot = wrapper.slot >= 0 ? wrapper.slot : resolveSlot(object, storageKeyPath)
            guard slot >= 0 else { return }
            do {
                let stored = try wrapper.conversion.encode(newValue, transformer: object.entity.attributes[slot].transformer)
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
}

extension Attribute: AttributeWrapperDescribing {
    func attributeDescription() -> AttributeDescription {
        let transformer = transformerName.flatMap { conversion.makeTransformer($0) }
        var description = AttributeDescription(
            key, type: conversion.attributeType, isOptional: conversion.isOptional,
            defaultValue: (try? conversion.encode(initialValue, transformer: transformer)) ?? .null,
            isIndexed: options.contains(.indexed), isUnique: options.contains(.unique), transformerName: transformerName)
        description.transformer = transformer
        return description
    }
}

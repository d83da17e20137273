/// Declares a derived attribute on a `ManagedObject` subclass: a value the store computes from
/// other keys and keeps current in every save's transaction (Core Data's
/// `NSDerivedAttributeDescription`). It is a real column, so predicates and sort keys on it are
/// plain SQL; the app reads it and never sets it.
///
/// The expression is Core Data's `derivationExpression`, in the part Strata supports:
/// `folder.name` (a to-one's attribute), `notes.@count`, `notes.@sum.rank` (and `@min`, `@max`,
/// `@avg`), `lowercase:(title)`, `uppercase:(title)`, `canonical:(title)`. An expression the
/// model cannot resolve makes building the model fail with `.invalidModel`.
///
/// The initial value is what a new object reads until it is saved; after a save the object
/// reads the stored value. An aggregate over no members (`@min`, `@max`, `@avg`) or a nil
/// to-one is nil: declare those optional.
///
/// In an entity hierarchy a subclass inherits its superclass's derived attributes, and may
/// declare its own; an aggregate over a to-many to a superentity counts the members of every
/// subentity.
///
/// For example:
/// ```swift
/// final class Folder: ManagedObject {
///     @Attribute("name") var name = ""
///     @Relationship("notes", inverse: "folder") var notes: Set<Note>
///     @Derived("noteCount", .indexed, from: "notes.@count") var noteCount = 0
///     @Derived("nameKey", from: "canonical:(name)") var nameKey = ""
/// }
/// let busy = FetchRequest<Folder>(predicate: try ObjectPredicate("noteCount > 10"),
///                                 sortKeys: [SortKey("noteCount", ascending: false)])
/// ```
@propertyWrapper
public struct Derived<Value> {
    @usableFromInline var attribute: Attribute<Value>
    @usableFromInline let expression: String

    /// A derived attribute under `key`, computed by the store from `expression`; `options` may
    /// hold ``AttributeOptions/indexed`` (a derived attribute cannot be unique or searchable).
    @inlinable
    public init(wrappedValue: Value, _ key: String, _ options: AttributeOptions = [], from expression: String) where Value: AttributeConvertible {
        let construction = ObjectConstruction.unretainedCurrent
        self.attribute = Attribute(key: key, options: options, initialValue: wrappedValue, construction: construction,
                                   conversion: ScalarConversion<Value>.self, transformerName: nil)
        self.expression = expression
    }

    @available(*, unavailable, message: "@Derived works only on ManagedObject subclasses")
    public var wrappedValue: Value {
        get { preconditionFailure("unreachable") }  // programmer error: unavailable accessor
    }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object,
        wrapped wrappedKeyPath: KeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Derived<Value>>
    ) -> Value {
        get {
            var slot = object[keyPath: storageKeyPath].attribute.slot
            if slot < 0, let key = object[keyPath: storageKeyPath].attribute.declaration?.key {   // a probe: found by key
                slot = object.attributeSlot(forKey: key)
                if slot >= 0 { object[keyPath: storageKeyPath].attribute.slot = slot }
            }
            let initial = object[keyPath: storageKeyPath].attribute.initialValue
            guard slot >= 0 else { return initial }
            let stored = object.attributeValue(at: slot)
            if let value = Attribute<Value>.fastDecode(stored) { return value }
            guard let conversion = object.entity.attributeConversions[slot] ?? object[keyPath: storageKeyPath].attribute.declaration?.conversion else { return initial }
            return conversion.decode(stored, as: Value.self) ?? initial
        }
    }
}

extension Derived: AttributeWrapperDescribing {
    var conversionType: (any AttributeConversion.Type)? { attribute.declaration?.conversion }

    func attributeDescription() -> AttributeDescription {
        var description = attribute.attributeDescription()
        description.derivationExpression = expression
        description.isOptional = true
        return description
    }
}

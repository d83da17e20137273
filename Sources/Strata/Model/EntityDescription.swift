/// Describes one entity: a name, attributes, relationships and the class of its objects.
///
/// A description you create is a specification; the one you get back from
/// ``ObjectModel/entity(named:)`` is resolved (it knows its index, its destinations and its
/// SQLite layout) and is the one objects and requests use.
///
/// For example:
/// ```swift
/// let note = EntityDescription("Note", attributes: [
///     AttributeDescription("title", type: .string, defaultValue: .string("")),
/// ], relationships: [
///     RelationshipDescription("folder", destination: "Folder", inverse: "notes"),
/// ])
/// ```
public final class EntityDescription: Sendable, CustomStringConvertible {
    /// The entity's name, which is also its table's name.
    public let name: String
    /// The attributes, in a fixed order (the order of values in an object's storage).
    public let attributes: [AttributeDescription]
    /// The relationships, in a fixed order.
    public let relationships: [RelationshipDescription]
    /// The class instantiated for this entity's objects (`ManagedObject` for dynamic entities).
    public let managedClass: ManagedObject.Type
    /// The entity's former name, so that a lightweight migration renames its table instead of
    /// dropping one and creating another (typed classes: ``ManagedObject/entityRenamedFrom``).
    public let renamingIdentifier: String?
    /// The entity this one inherits from, if any: its objects are objects of that entity too
    /// (a fetch of the superentity returns them), and it has that entity's properties first,
    /// in the same order. Typed classes get it from their Swift superclass when that class is
    /// in the model too (see docs/architecture.md, "Entity inheritance").
    public let superentityName: String?
    /// Whether the entity only gathers the properties of its subentities: it cannot be
    /// inserted (typed classes: ``ManagedObject/isAbstractEntity``).
    public let isAbstract: Bool

    /// Position of this entity in its model (stable: entities are sorted by name), as object
    /// IDs compare it (two models built alike number their entities alike). -1 until resolved.
    package let index: Int
    /// Attribute and relationship positions by key.
    let propertyIndex: [String: PropertyRef]
    /// Attribute names by slot (cheap to compare while wrappers learn their slots).
    let attributeNames: [String]
    /// Relationship names by slot.
    let relationshipNames: [String]
    /// Attribute types by slot (the hot paths read these without copying whole descriptions).
    @usableFromInline let attributeTypes: [AttributeType]

    /// Whether the attribute at `slot` is stored by a transformer (an `@Attribute`'s setter
    /// then encodes through it, whatever the Swift type).
    @inlinable func attributeIsTransformable(at slot: Int) -> Bool { attributeTypes[slot] == .transformable }
    /// Whether each attribute (by slot) may be nil.
    let attributeIsOptional: [Bool]
    /// The slots of the to-one relationships that may not be nil.
    let requiredToOneSlots: [Int]
    /// Whether each relationship (by slot) is to-many.
    @usableFromInline let relationshipIsToMany: [Bool]
    /// Whether some attribute is derived (the store computes its value).
    let hasDerivedAttributes: Bool
    /// The slots of the to-one relationships whose foreign key is in this entity's row.
    let storedToOneSlots: [Int]
    /// The table's columns after `_id` and `_version`, in order.
    let columns: [Column]
    /// Every attribute's default value by slot: a new object's storage starts as a copy of it.
    let defaultAttributeValues: [PropertyValue]
    /// Every attribute's transformer by slot (nil for attributes that are not transformable),
    /// read on the hot paths without copying the attribute's description.
    let attributeTransformers: [(any DataTransformer)?]
    /// For typed classes: how each attribute's wrapper converts its Swift type (by slot).
    @usableFromInline let attributeConversions: [(any AttributeConversion.Type)?]
    /// For typed classes: how each relationship's wrapper converts its Swift type (by slot).
    @usableFromInline let relationshipConversions: [(any RelationshipConversion.Type)?]
    /// Where the entity sits in its inheritance hierarchy, and its table.
    let hierarchy: EntityHierarchy

    /// Creates an unresolved entity description, to be passed to ``ObjectModel/init(entities:)``.
    ///
    /// `renamingIdentifier` is the entity's name in an older model (see docs/migration.md).
    /// A subentity names its `superentity` and lists only its own properties: it inherits the
    /// superentity's. An `abstract` entity cannot be inserted.
    ///
    /// For example:
    /// ```swift
    /// let attachment = EntityDescription("Attachment", attributes: [
    ///     AttributeDescription("size", type: .int64, defaultValue: .integer(0)),
    /// ], isAbstract: true)
    /// let photo = EntityDescription("Photo", attributes: [
    ///     AttributeDescription("width", type: .int64, defaultValue: .integer(0)),
    /// ], superentity: "Attachment")
    /// ```
    public convenience init(
        _ name: String, attributes: [AttributeDescription] = [], relationships: [RelationshipDescription] = [],
        managedClass: ManagedObject.Type = ManagedObject.self, renamingIdentifier: String? = nil,
        superentity: String? = nil, isAbstract: Bool = false
    ) {
        self.init(name: name, attributes: attributes, relationships: relationships, managedClass: managedClass,
                  index: -1, attributeConversions: [], relationshipConversions: [], renamingIdentifier: renamingIdentifier,
                  superentityName: superentity, isAbstract: isAbstract)
    }

    init(
        name: String, attributes: [AttributeDescription], relationships: [RelationshipDescription],
        managedClass: ManagedObject.Type, index: Int,
        attributeConversions: [(any AttributeConversion.Type)?], relationshipConversions: [(any RelationshipConversion.Type)?],
        renamingIdentifier: String? = nil, superentityName: String? = nil, isAbstract: Bool = false,
        hierarchy: EntityHierarchy? = nil
    ) {
        self.name = name
        self.superentityName = superentityName
        self.isAbstract = isAbstract
        self.hierarchy = hierarchy ?? .standalone(name, index: index)
        self.attributes = attributes
        self.relationships = relationships
        self.managedClass = managedClass
        self.renamingIdentifier = renamingIdentifier
        self.index = index
        self.attributeConversions = attributeConversions.count == attributes.count ? attributeConversions : Array(repeating: nil, count: attributes.count)
        self.relationshipConversions = relationshipConversions.count == relationships.count ? relationshipConversions : Array(repeating: nil, count: relationships.count)
        var lookup: [String: PropertyRef] = [:]
        for (i, a) in attributes.enumerated() { lookup[a.name] = .attribute(i) }
        for (i, r) in relationships.enumerated() { lookup[r.name] = .relationship(i) }
        self.propertyIndex = lookup
        self.attributeNames = attributes.map(\.name)
        self.relationshipNames = relationships.map(\.name)
        self.attributeTypes = attributes.map(\.type)
        self.attributeIsOptional = attributes.map(\.isOptional)
        self.requiredToOneSlots = relationships.indices.filter { !relationships[$0].isOptional && !relationships[$0].isToMany }
        self.relationshipIsToMany = relationships.map(\.isToMany)
        self.hasDerivedAttributes = attributes.contains(where: \.isDerived)
        self.storedToOneSlots = relationships.indices.filter { slot in
            if !relationships[slot].isToMany, case .foreignKey = relationships[slot].storage { return true }
            return false
        }
        self.defaultAttributeValues = attributes.map(\.defaultValue)
        self.attributeTransformers = attributes.map(\.transformer)
        var columns: [Column] = attributes.indices.map { .attribute($0) }
        for (i, r) in relationships.enumerated() {
            if case .foreignKey = r.storage { columns.append(.foreignKey(i)) }
        }
        for (i, r) in relationships.enumerated() where r.foreignKeyOrderColumn != nil {
            columns.append(.order(i))
        }
        self.columns = columns
    }

    /// The attribute named `key`, if any.
    public func attribute(named key: String) -> AttributeDescription? {
        if case .attribute(let i) = propertyIndex[key] { return attributes[i] }
        return nil
    }

    /// The relationship named `key`, if any.
    public func relationship(named key: String) -> RelationshipDescription? {
        if case .relationship(let i) = propertyIndex[key] { return relationships[i] }
        return nil
    }

    public var description: String { "EntityDescription(\(name))" }
}

/// A property's position in its entity.
enum PropertyRef: Sendable, Hashable {
    case attribute(Int)
    case relationship(Int)
}

/// One column of an entity table (besides `_id` and `_version`).
enum Column: Sendable, Hashable {
    /// An attribute's column, named after it.
    case attribute(Int)
    /// A to-one relationship's foreign key, named after it.
    case foreignKey(Int)
    /// The position of this row in the inverse ordered to-many of a to-one relationship.
    case order(Int)
}

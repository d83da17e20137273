/// Describes one attribute of an entity: its name, type, optionality, default and index.
///
/// Typed models get these from `@Attribute` property wrappers; generic tools build them
/// in code.
///
/// For example:
/// ```swift
/// let title = AttributeDescription("title", type: .string, defaultValue: .string(""))
/// let uid = AttributeDescription("uniqueIdentifier", type: .string, isUnique: true)
/// let body = AttributeDescription("body", type: .string, isSearchable: true)
/// let noteCount = AttributeDescription("noteCount", type: .int64, derivationExpression: "notes.@count")
/// ```
public struct AttributeDescription: Sendable, Hashable {
    /// The key, which is also the column name.
    public var name: String
    /// The value type.
    public var type: AttributeType
    /// Whether `nil` (SQL NULL) is allowed. A required attribute that is nil at save is a
    /// validation error.
    public var isOptional: Bool
    /// The value a newly inserted object starts with (`.null` for none).
    public var defaultValue: PropertyValue
    /// Whether the column gets an index.
    public var isIndexed: Bool
    /// Whether values must be unique across the entity (a unique index; collisions are conflicts).
    public var isUnique: Bool
    /// Whether the attribute (a `.string`) is indexed for full-text search (see
    /// ``AttributeOptions/searchable``).
    public var isSearchable: Bool
    /// For `.transformable`: the transformer's registered name.
    public var transformerName: TransformerName?
    /// A former name, so that a lightweight migration can rename instead of drop and add.
    public var renamingIdentifier: String?
    /// For a derived attribute: how the store computes its value (Core Data's
    /// `derivationExpression`): `folder.name`, `notes.@count`, `notes.@sum.rank` (and `@min`,
    /// `@max`, `@avg`), `lowercase:(title)`, `uppercase:(title)`, `canonical:(title)`. The
    /// store keeps the column current in every save's transaction; the app never sets it. See
    /// ``Derived``.
    public var derivationExpression: String?

    /// Whether the store computes the value (see ``derivationExpression``).
    public var isDerived: Bool { derivationExpression != nil }

    /// The parsed ``derivationExpression`` (set when the model is built).
    var derivation: Derivation?

    /// The transformer used for this attribute (resolved when the model is built; `nil`
    /// for other types).
    ///
    /// For example:
    /// ```swift
    /// let value = try attribute.transformer?.decode(bytes)
    /// ```
    public internal(set) var transformer: (any DataTransformer)?

    /// Creates an attribute description.
    public init(
        _ name: String, type: AttributeType, isOptional: Bool = true, defaultValue: PropertyValue = .null,
        isIndexed: Bool = false, isUnique: Bool = false, transformerName: TransformerName? = nil,
        renamingIdentifier: String? = nil, isSearchable: Bool = false, derivationExpression: String? = nil
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.defaultValue = defaultValue
        self.isIndexed = isIndexed
        self.isUnique = isUnique
        self.transformerName = transformerName
        self.renamingIdentifier = renamingIdentifier
        self.isSearchable = isSearchable
        self.derivationExpression = derivationExpression
        self.derivation = derivationExpression.flatMap(Derivation.init(parsing:))
    }

    public static func == (lhs: AttributeDescription, rhs: AttributeDescription) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.isOptional == rhs.isOptional
            && lhs.defaultValue == rhs.defaultValue && lhs.isIndexed == rhs.isIndexed
            && lhs.isUnique == rhs.isUnique && lhs.transformerName == rhs.transformerName
            && lhs.renamingIdentifier == rhs.renamingIdentifier && lhs.isSearchable == rhs.isSearchable
            && lhs.derivationExpression == rhs.derivationExpression
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(type)
    }
}

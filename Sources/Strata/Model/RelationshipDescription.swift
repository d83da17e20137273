/// Describes one relationship of an entity: its destination, inverse, cardinality and
/// delete rule. Every relationship must have an inverse, and the inverse must point back.
///
/// For example:
/// ```swift
/// let notes = RelationshipDescription("notes", destination: "Note", inverse: "folder",
///                                     isToMany: true, deleteRule: .cascade)
/// ```
public struct RelationshipDescription: Sendable, Hashable {
    /// The key.
    public var name: String
    /// The destination entity's name.
    public var destination: String
    /// The inverse relationship's name on the destination entity.
    public var inverse: String
    /// Whether this side holds many objects.
    public var isToMany: Bool
    /// Whether a to-many relationship keeps its objects in order.
    public var isOrdered: Bool
    /// What deleting the source does to the destination.
    public var deleteRule: DeleteRule
    /// Whether an empty to-one (nil) is allowed at save.
    public var isOptional: Bool
    /// A former name, so that a lightweight migration renames instead of drop and add.
    public var renamingIdentifier: String?

    /// Where the relationship lives in SQLite (resolved by ``ObjectModel``).
    var storage: RelationshipStorage = .foreignKey(column: "")
    /// The destination entity's index in the model (resolved by ``ObjectModel``).
    var destinationIndex = -1
    /// The inverse's index among the destination's relationships (resolved by ``ObjectModel``).
    var inverseIndex = -1
    /// Whether the inverse is to-many (resolved by ``ObjectModel``).
    var inverseIsToMany = false
    /// For a to-one whose inverse is ordered: the column in this table holding the position.
    var foreignKeyOrderColumn: String?

    /// Creates a relationship description.
    public init(
        _ name: String, destination: String, inverse: String, isToMany: Bool = false,
        isOrdered: Bool = false, deleteRule: DeleteRule = .nullify, isOptional: Bool = true,
        renamingIdentifier: String? = nil
    ) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.deleteRule = deleteRule
        self.isOptional = isOptional
        self.renamingIdentifier = renamingIdentifier
    }
}

/// Where a relationship lives in SQLite (computed when the model is built).
enum RelationshipStorage: Sendable, Hashable {
    /// This entity's table has a foreign-key column (named after the relationship).
    case foreignKey(column: String)
    /// The destination's table has the foreign-key column of the inverse; `orderColumn` is
    /// set for an ordered to-many, and lives in the destination's table too.
    case inverseForeignKey(column: String, orderColumn: String?)
    /// A join table holds the pairs (many-to-many).
    case joinTable(JoinTable)
}

/// A many-to-many relationship's join table, seen from one side.
struct JoinTable: Sendable, Hashable {
    /// The table name.
    var name: String
    /// The column holding this side's primary key.
    var ownColumn: String
    /// The column holding the destination's primary key.
    var otherColumn: String
    /// The column holding this side's order, when this side is ordered.
    var ownOrderColumn: String?
    /// Whether this side writes the table at save (exactly one side of each pair does).
    var isOwner: Bool
}

/// The model key path a Swift key path (or a part of a `#Predicate`) stands for: its keys
/// from the fetched object, e.g. `["folder", "name"]`, and what it ends on.
struct ModelKeyPath: Sendable, Hashable {
    /// What the key path reaches.
    enum Terminal: Sendable, Hashable {
        /// An object: the fetched one (no keys), a `contains(where:)` element, or a to-one.
        case object
        /// An attribute of this type.
        case attribute(AttributeType)
        /// A to-many relationship.
        case toMany
        /// The number of objects of a to-many relationship (`@count`).
        case count
    }

    var keys: [String]
    var terminal: Terminal

    /// `self` followed by `other` (whose keys are relative to the object `self` reaches).
    func appending(_ other: ModelKeyPath) -> ModelKeyPath {
        ModelKeyPath(keys: keys + other.keys, terminal: other.terminal)
    }

    /// The keys joined with dots, as the format syntax writes them (`SELF` when empty).
    var dotted: String { keys.isEmpty ? "SELF" : keys.joined(separator: ".") }
}

import OrderedCollections

/// The in-memory state of one relationship of one object.
enum RelationValue {
    /// Not read yet (the object or the relationship is a fault).
    case unloaded
    /// A to-one, known by ID only (read from a row; resolved to an object on first use).
    case toOneID(ObjectID?)
    /// A to-one, resolved.
    case toOne(ManagedObject?)
    /// A to-many (ordered or not: the order is meaningful only for ordered relationships).
    case toMany(OrderedSet<ManagedObject>)

    /// The value as change sets and dictionaries report it.
    var propertyValue: PropertyValue {
        switch self {
        case .unloaded: .null
        case .toOneID(let id): id.map(PropertyValue.objectID) ?? .null
        case .toOne(let object): object.map { .objectID($0.objectID) } ?? .null
        case .toMany(let objects): .objectIDs(objects.map(\.objectID))
        }
    }
}

extension RelationValue {
    /// Whether a ``RowSnapshot`` may hold this state: it names objects by ID only.
    var isSnapshotState: Bool {
        switch self {
        case .unloaded, .toOneID: true
        case .toOne, .toMany: false
        }
    }

    /// For a loaded to-one, the ID it points at (`.some(nil)` when it points at nothing); nil
    /// for a to-many or an unloaded relationship.
    var loadedToOneTarget: ObjectID?? {
        switch self {
        case .toOne(let target): .some(target?.objectID)
        case .toOneID(let target): .some(target)
        case .toMany, .unloaded: nil
        }
    }
}

extension EntityDescription {
    /// A new object's relationship states by slot: empty to-manys and nil to-ones.
    var newRelationValues: [RelationValue] {
        relationshipIsToMany.map { $0 ? .toMany([]) : .toOne(nil) }
    }
}


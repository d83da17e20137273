import Strata

/// Which properties of a model the merge keeps, and on which side of each relationship.
///
/// Every attribute is kept. A relationship and its inverse are one fact, so the merge keeps
/// it once, on its *canonical side*: the to-one side of a one-to-many; for a one-to-one or a
/// many-to-many, the side whose `Entity.relationship` name sorts first. The store's inverse
/// upkeep fills in the other side.
///
/// In an inheritance hierarchy a relationship's side is decided by the entity that declares
/// it, so every entity of the hierarchy keeps it on the same side. A reference names its
/// target by global identifier only; when the destination has subentities, the target is the
/// object of that identifier among the destination and its subentities (``kinds(of:)``).
struct SyncModel: Sendable {
    struct EntityPlan: Sendable {
        let entity: EntityDescription
        /// The attribute whose value is the global identifier, if the entity has it.
        let identifierAttribute: String?
        let attributes: [AttributeDescription]
        /// Canonical to-one relationships.
        let toOnes: [RelationshipDescription]
        /// Canonical to-many relationships (many-to-many).
        let toManys: [RelationshipDescription]

        /// Where the property `name` is kept, by its bytes (as the state keys it): its index
        /// among ``attributes``, ``toOnes`` or ``toManys``; `nil` when the merge keeps none.
        func slot(of name: String) -> PropertySlot? {
            if let index = attributes.firstIndex(where: { UTF8Order.compare($0.name, name) == 0 }) { return .attribute(index) }
            if let index = toOnes.firstIndex(where: { UTF8Order.compare($0.name, name) == 0 }) { return .toOne(index) }
            if let index = toManys.firstIndex(where: { UTF8Order.compare($0.name, name) == 0 }) { return .toMany(index) }
            return nil
        }
    }

    /// The plan of `entity`: `last` when it is that entity's (compared by bytes, no hashing:
    /// a piece or a file lists one entity's objects together), else the one looked up.
    func plan(of entity: String, reusing last: EntityPlan?) -> EntityPlan? {
        if let last, UTF8Order.compare(last.entity.name, entity) == 0 { return last }
        return entities[entity]
    }

    /// A property's place in its ``EntityPlan``.
    enum PropertySlot {
        case attribute(Int)
        case toOne(Int)
        case toMany(Int)
    }

    let model: ObjectModel
    let entities: [String: EntityPlan]
    /// For each entity, the entities whose objects a reference to it may name: itself alone,
    /// or, with subentities, it and every entity below it that is not abstract, in name order.
    private let kindsByEntity: [String: [String]]
    /// For each subentity, its superentities, nearest first (absent outside hierarchies).
    private let superentitiesByEntity: [String: [String]]
    /// For each entity of a hierarchy, the hierarchy's other concrete entities.
    private let siblingsByEntity: [String: [String]]
    /// For each entity of a hierarchy, the entities that keep a relationship that may point
    /// at its objects.
    private let referrersByEntity: [String: [String]]

    init(model: ObjectModel, identifierAttribute: String?) {
        self.model = model
        var plans: [String: EntityPlan] = [:]
        for entity in model.entities {
            var toOnes: [RelationshipDescription] = []
            var toManys: [RelationshipDescription] = []
            for relationship in entity.relationships where Self.isCanonical(relationship, of: entity, in: model) {
                if relationship.isToMany { toManys.append(relationship) } else { toOnes.append(relationship) }
            }
            let identifier = identifierAttribute.flatMap { entity.attribute(named: $0) }.map(\.name)
            // Derived attributes are not synced: each peer's store computes them from what is.
            let attributes = entity.attributes.filter { !$0.isDerived }
            plans[entity.name] = EntityPlan(entity: entity, identifierAttribute: identifier, attributes: attributes, toOnes: toOnes, toManys: toManys)
        }
        entities = plans
        var kinds: [String: [String]] = [:], superentities: [String: [String]] = [:]
        for entity in model.entities {
            var chain: [String] = []
            var parent = entity.superentityName
            while let name = parent {
                chain.append(name)
                parent = model.entity(named: name)?.superentityName
            }
            if !chain.isEmpty { superentities[entity.name] = chain }
        }
        for entity in model.entities {
            let below = model.entities.filter { $0 !== entity && !$0.isAbstract && superentities[$0.name]?.contains(entity.name) == true }.map(\.name)
            kinds[entity.name] = below.isEmpty ? [entity.name]
                : ((entity.isAbstract ? [] : [entity.name]) + below).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
        kindsByEntity = kinds
        superentitiesByEntity = superentities
        var siblings: [String: [String]] = [:]
        for entity in model.entities {
            let root = superentities[entity.name]?.last ?? entity.name
            guard let all = kinds[root], all != [entity.name] else { continue }
            siblings[entity.name] = all.filter { $0 != entity.name }
        }
        siblingsByEntity = siblings
        var referrers: [String: [String]] = [:]
        for name in siblings.keys {
            referrers[name] = plans.values.filter { plan in
                (plan.toOnes + plan.toManys).contains { kinds[$0.destination]?.contains(name) == true }
            }.map(\.entity.name).sorted()
        }
        referrersByEntity = referrers
    }

    /// The entities, in a fixed order, whose objects a reference to `destination` may name:
    /// `destination` alone unless it has subentities.
    ///
    /// For example:
    /// ```swift
    /// model.kinds(of: "Attachment")   // ["Document", "Photo"] when Attachment is abstract
    /// ```
    func kinds(of destination: String) -> [String] {
        kindsByEntity[destination] ?? [destination]
    }

    /// `keys` and, for objects of subentities, the same identifier under each superentity: the
    /// keys under which a link waiting for one of these objects may have been noted (a note
    /// names the relationship's destination, see `StateTransaction.noteDanglingLink`).
    func referenceKeys(_ keys: [GlobalObjectKey]) -> [GlobalObjectKey] {
        guard !superentitiesByEntity.isEmpty else { return keys }
        var result = keys
        for key in keys {
            for name in superentitiesByEntity[key.entity] ?? [] { result.append(GlobalObjectKey(entity: name, gid: key.gid)) }
        }
        return result
    }

    /// The entities of `entity`'s hierarchy other than itself that may hold objects: an
    /// identifier one of them holds is not given to a new object of `entity`.
    func siblings(of entity: String) -> [String] {
        siblingsByEntity[entity] ?? []
    }

    /// The entities whose kept relationships may point at objects of `entity` (one of a
    /// hierarchy; none outside hierarchies).
    func referrers(of entity: String) -> [String] {
        referrersByEntity[entity] ?? []
    }

    static func isCanonical(_ relationship: RelationshipDescription, of entity: EntityDescription, in model: ObjectModel) -> Bool {
        guard let destination = model.entity(named: relationship.destination), let inverse = destination.relationship(named: relationship.inverse) else { return true }
        if relationship.isToMany != inverse.isToMany { return !relationship.isToMany }
        let mine = (declaring(relationship.name, from: entity, in: model), relationship.name)
        let theirs = (declaring(inverse.name, from: destination, in: model), inverse.name)
        return mine <= theirs
    }

    /// The entity that declares the relationship `name` that `entity` has: the topmost of it
    /// and its superentities that has it (`entity` itself outside hierarchies).
    private static func declaring(_ name: String, from entity: EntityDescription, in model: ObjectModel) -> String {
        var declarer = entity
        while let parent = declarer.superentityName.flatMap(model.entity(named:)), parent.relationship(named: name) != nil { declarer = parent }
        return declarer.name
    }
}

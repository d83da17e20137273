import Strata

/// Which properties of a model the merge keeps, and on which side of each relationship.
///
/// Every attribute is kept. A relationship and its inverse are one fact, so the merge keeps
/// it once, on its *canonical side*: the to-one side of a one-to-many; for a one-to-one or a
/// many-to-many, the side whose `Entity.relationship` name sorts first. The store's inverse
/// upkeep fills in the other side.
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
    }

    let model: ObjectModel
    let entities: [String: EntityPlan]

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
    }

    static func isCanonical(_ relationship: RelationshipDescription, of entity: EntityDescription, in model: ObjectModel) -> Bool {
        guard let inverse = model.entity(named: relationship.destination)?.relationship(named: relationship.inverse) else { return true }
        if relationship.isToMany != inverse.isToMany { return !relationship.isToMany }
        let mine = (entity.name, relationship.name), theirs = (relationship.destination, inverse.name)
        return mine <= theirs
    }

    /// The kind of a property by name: an attribute, a canonical to-one, a canonical to-many.
    func property(_ name: String, of entity: String) -> PropertyKind? {
        guard let plan = entities[entity] else { return nil }
        if let attribute = plan.attributes.first(where: { $0.name == name }) { return .attribute(attribute) }
        if let relationship = plan.toOnes.first(where: { $0.name == name }) { return .toOne(relationship) }
        if let relationship = plan.toManys.first(where: { $0.name == name }) { return .toMany(relationship) }
        return nil
    }

    enum PropertyKind {
        case attribute(AttributeDescription)
        case toOne(RelationshipDescription)
        case toMany(RelationshipDescription)
    }

    /// Refuses what the merge cannot keep yet: a relationship whose kept (canonical) side
    /// points at an entity with subentities. The state names each object under its own entity
    /// and a reference under the relationship's destination, so such links would not resolve.
    /// Relationships *from* subentities, and to-manys to a superentity kept on their to-one
    /// side, sync (`SyncInheritanceTests`).
    func refuseLinksIntoHierarchies() throws(SyncError) {
        let parents = Set(model.entities.compactMap(\.superentityName))
        for plan in entities.values.sorted(by: { $0.entity.name < $1.entity.name }) {
            for relationship in plan.toOnes + plan.toManys where parents.contains(relationship.destination) {
                throw SyncError(.storeNotSyncable, "\(plan.entity.name).\(relationship.name) points at \(relationship.destination), which has subentities: syncing such a relationship is not supported yet")
            }
        }
    }
}

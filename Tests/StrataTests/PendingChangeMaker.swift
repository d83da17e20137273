import Foundation
@testable import Strata

/// Copies the fixtures into a real store, then makes seeded random unsaved changes in a
/// context: inserts, attribute and relationship updates (some set back to the saved value),
/// deletes, over every entity of the predicate test model.
struct PendingChangeMaker {
    let context: ObjectContext
    let ids: [String: [ObjectID]]
    var rng: SeededRandom
    /// Objects this maker inserted, by entity (some later deleted).
    var insertedObjects: [String: [ManagedObject]] = [:]
    /// How many changes of each kind ran.
    var counts: [String: Int] = [:]

    init(context: ObjectContext, ids: [String: [ObjectID]], rng: SeededRandom) {
        self.context = context
        self.ids = ids
        self.rng = rng
    }

    /// Inserts one object per fixture object (same attributes and relationships), saves, and
    /// returns the saved IDs by entity, in fixture order.
    static func copy(_ fixtures: PredicateTestStore, into context: ObjectContext) throws -> [String: [ObjectID]] {
        var copies: [ObjectIdentifier: ManagedObject] = [:]
        var made: [String: [ManagedObject]] = [:]
        for entity in fixtures.model.entities {
            for source in fixtures.objects[entity.name] ?? [] {
                let object = try context.insert(entityNamed: entity.name)
                for (i, value) in source.attributes.enumerated() { object.setAttributeValue(value, at: i) }
                copies[ObjectIdentifier(source)] = object
                made[entity.name, default: []].append(object)
            }
        }
        for entity in fixtures.model.entities {
            for source in fixtures.objects[entity.name] ?? [] {
                guard let object = copies[ObjectIdentifier(source)] else { continue }
                for (r, relationship) in entity.relationships.enumerated() {
                    if relationship.isToMany {
                        for destination in source.toMany[r] ?? [] { object.addToMany(copies[ObjectIdentifier(destination)]!, at: r) }
                    } else if let destination = source.toOne[r] {
                        object.setToOne(copies[ObjectIdentifier(destination)], at: r)
                    }
                }
            }
        }
        try context.save()
        return made.mapValues { $0.map(\.objectID) }
    }

    /// A random live object of `entity`: a saved one (maybe a fault) or one this maker inserted.
    mutating func some(_ entity: String) -> ManagedObject? {
        let fresh = (insertedObjects[entity] ?? []).filter { !$0.isDeleted }
        if !fresh.isEmpty && rng.chance(0.3) { return rng.pick(fresh) }
        for _ in 0..<5 {
            let object = context.object(with: rng.pick(ids[entity] ?? []))
            if !object.isDeleted { return object }
        }
        return nil
    }

    /// A random value for `attribute`, from the fixtures' pools (nil included).
    mutating func value(for attribute: AttributeDescription) -> PropertyValue {
        switch attribute.type {
        case .string: return rng.pick(PredicateFixtures.strings).map(PropertyValue.string) ?? .null
        case .int16, .int32, .int64: return rng.pick(PredicateFixtures.integers).map(PropertyValue.integer) ?? .null
        case .double: return rng.pick(PredicateFixtures.doubles).map(PropertyValue.double) ?? .null
        case .bool: return rng.chance(0.2) ? .null : .bool(rng.chance(0.5))
        case .date: return rng.pick(PredicateFixtures.dates).map { .date(Date(timeIntervalSince1970: $0)) } ?? .null
        case .decimal: return rng.pick(PredicateFixtures.decimals).map(PropertyValue.decimal) ?? .null
        case .uuid: return rng.pick(PredicateFixtures.uuids).map(PropertyValue.uuid) ?? .null
        case .data: return rng.pick(PredicateFixtures.blobs).map(PropertyValue.data) ?? .null
        case .url, .transformable: return .null
        }
    }

    /// Sets a random attribute of `object` (sometimes to a value and back again).
    mutating func changeAttribute(of object: ManagedObject) {
        let index = Int.random(in: 0..<object.entity.attributes.count, using: &rng)
        let attribute = object.entity.attributes[index]
        if rng.chance(0.15) {
            let saved = object.attributeValue(at: index)
            object.setAttributeValue(value(for: attribute), at: index)
            object.setAttributeValue(saved, at: index)   // changed, but equal to the saved value
            counts["revert", default: 0] += 1
        } else {
            object.setAttributeValue(value(for: attribute), at: index)
            counts["attribute", default: 0] += 1
        }
    }

    /// Changes a random relationship of `object`: a to-one to another object or nil, a to-many
    /// gains or loses a member.
    mutating func changeRelationship(of object: ManagedObject) {
        let index = Int.random(in: 0..<object.entity.relationships.count, using: &rng)
        let relationship = object.entity.relationships[index]
        let destination = context.model.entities[relationship.destinationIndex].name
        if relationship.isToMany {
            let members = object.toMany(at: index)
            if let member = members.randomElement(using: &rng), rng.chance(0.5) {
                object.removeFromMany(member, at: index)
            } else if let target = some(destination) {
                object.addToMany(target, at: index)
            }
        } else {
            object.setToOne(rng.chance(0.2) ? nil : some(destination), at: index)
        }
        counts["relationship", default: 0] += 1
    }

    /// Inserts an object of `entity` with random attributes and a few relationships.
    mutating func insert(_ entity: String) throws {
        let object = try context.insert(entityNamed: entity)
        for (i, attribute) in object.entity.attributes.enumerated() where rng.chance(0.8) { object.setAttributeValue(value(for: attribute), at: i) }
        insertedObjects[entity, default: []].append(object)
        for _ in 0..<Int.random(in: 0...3, using: &rng) { changeRelationship(of: object) }
        counts["insert", default: 0] += 1
    }

    /// Applies `steps` random changes.
    mutating func apply(steps: Int) throws {
        let entities = ["Item", "Item", "Item", "Group", "Tag", "Detail"]
        for _ in 0..<steps {
            let entity = rng.pick(entities)
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1: try insert(entity)
            case 2, 3, 4: if let object = some(entity) { changeAttribute(of: object) }
            case 5, 6, 7: if let object = some(entity) { changeRelationship(of: object) }
            default:
                if let object = some(entity) {
                    context.delete(object)
                    counts["delete", default: 0] += 1
                }
            }
        }
    }
}

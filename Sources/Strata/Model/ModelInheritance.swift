/// Resolves a model's entity inheritance: each entity's superentity, the order that puts
/// superentities first, the flattened properties of subentities, and each entity's
/// ``EntityHierarchy``.
///
/// A subentity's properties begin with its superentity's, in the same slots, so that a slot
/// (or a relationship's `inverseIndex`) read off the superentity is valid on every object of
/// the hierarchy.
struct ModelInheritance {
    /// Each entity's direct superentity (by index in the sorted specs).
    let parents: [Int?]
    /// Each entity's direct subentities.
    let children: [[Int]]
    /// Every entity, superentities before their subentities.
    let order: [Int]

    init(specs: [EntitySpec], byName: [String: Int]) throws(StrataError) {
        // Classes by identity (dynamic entities share the base class, which no typed class
        // lists among its superclasses).
        var byClass: [ObjectIdentifier: Int] = [:]
        for (i, spec) in specs.enumerated() { byClass[ObjectIdentifier(spec.managedClass)] = byClass[ObjectIdentifier(spec.managedClass)] ?? i }
        var parents: [Int?] = Array(repeating: nil, count: specs.count)
        for (i, spec) in specs.enumerated() {
            if let name = spec.superentity {
                guard let p = byName[name] else {
                    throw StrataError(.invalidModel, "\(spec.name) inherits from unknown entity \(name).", entity: spec.name)
                }
                parents[i] = p
            } else if let p = spec.superclasses.lazy.compactMap({ byClass[$0] }).first {
                parents[i] = p
            }
        }
        var children: [[Int]] = Array(repeating: [], count: specs.count)
        for (i, p) in parents.enumerated() { if let p { children[p].append(i) } }
        var order: [Int] = []
        var level = parents.indices.filter { parents[$0] == nil }
        while !level.isEmpty {
            order.append(contentsOf: level)
            level = level.flatMap { children[$0] }
        }
        guard order.count == specs.count else {
            let looped = specs.indices.filter { !order.contains($0) }.map { specs[$0].name }
            throw StrataError(.invalidModel, "Entities \(looped.joined(separator: ", ")) inherit from each other in a loop.", entity: looped.first)
        }
        self.parents = parents
        self.children = children
        self.order = order
    }

    /// Puts each subentity's inherited properties first, in its superentity's order (a typed
    /// class's reflection lists them after its own), and returns how many relationships each
    /// entity inherits. A property declared again under an inherited name must have the same
    /// type, and an attribute the same derivation or none (a typed subclass sees its
    /// superclass's wrappers again).
    func flatten(_ specs: inout [EntitySpec]) throws(StrataError) -> [Int] {
        var inheritedRelationships = Array(repeating: 0, count: specs.count)
        for e in order {
            guard let p = parents[e] else { continue }
            let parent = specs[p]
            var spec = specs[e]
            let attributeConversions = Self.padded(spec.attributeConversions, spec.attributes.count)
            let relationshipConversions = Self.padded(spec.relationshipConversions, spec.relationships.count)
            var attributes = parent.attributes
            var attributeSlots = Self.padded(parent.attributeConversions, parent.attributes.count)
            for (i, a) in spec.attributes.enumerated() {
                if let inherited = parent.attributes.first(where: { $0.name == a.name }) {
                    guard inherited.type == a.type else {
                        throw StrataError(.invalidModel, "\(spec.name).\(a.name) is \(a.type) but the \(parent.name) it inherits from has it as \(inherited.type).", entity: spec.name, key: a.name)
                    }
                    guard inherited.derivationExpression == a.derivationExpression else {
                        let mine = a.derivationExpression.map { "derived from \($0)" } ?? "stored"
                        let theirs = inherited.derivationExpression.map { "derived from \($0)" } ?? "stored"
                        throw StrataError(.invalidModel, "\(spec.name).\(a.name) is \(mine) but the \(parent.name) it inherits from has it \(theirs): a subentity keeps its superentity's attributes as they are.", entity: spec.name, key: a.name)
                    }
                    continue
                }
                attributes.append(a)
                attributeSlots.append(attributeConversions[i])
            }
            var relationships = parent.relationships
            var relationshipSlots = Self.padded(parent.relationshipConversions, parent.relationships.count)
            for (i, r) in spec.relationships.enumerated() {
                if let inherited = parent.relationships.first(where: { $0.name == r.name }) {
                    guard inherited.destination == r.destination, inherited.isToMany == r.isToMany else {
                        throw StrataError(.invalidModel, "\(spec.name).\(r.name) differs from the relationship of \(parent.name) it inherits.", entity: spec.name, key: r.name)
                    }
                    continue
                }
                relationships.append(r)
                relationshipSlots.append(relationshipConversions[i])
            }
            spec.attributes = attributes
            spec.attributeConversions = attributeSlots
            spec.relationships = relationships
            spec.relationshipConversions = relationshipSlots
            specs[e] = spec
            inheritedRelationships[e] = parent.relationships.count
        }
        return inheritedRelationships
    }

    /// Whether entity `i` is abstract: it asks to be and has subentities (an entity without
    /// any could never have objects). A typed class inherits its superclass's
    /// `isAbstractEntity`, so a class whose superentity's class also answers true is not
    /// abstract: only the topmost class of such a chain is.
    func isAbstract(_ i: Int, specs: [EntitySpec]) -> Bool {
        guard specs[i].isAbstract, !children[i].isEmpty else { return false }
        if let p = parents[i], specs[i].superentity == nil, specs[p].isAbstract { return false }
        return true
    }

    /// The hierarchy record of entity `i`.
    func hierarchy(of i: Int, specs: [EntitySpec]) -> EntityHierarchy {
        let names = specs.map(\.name)
        var root = i
        while let p = parents[root] { root = p }
        var kinds: [Int] = []
        var stack = [i]
        while let next = stack.popLast() {
            kinds.append(next)
            stack.append(contentsOf: children[next].reversed())
        }
        var searchColumns: [String] = []
        var all = [root]
        while let next = all.popLast() {
            for a in specs[next].attributes where a.isSearchable && !searchColumns.contains(a.name) { searchColumns.append(a.name) }
            all.append(contentsOf: children[next].reversed())
        }
        return EntityHierarchy(
            superentityIndex: parents[i], subentityIndexes: children[i], kindIndexes: kinds, kindNames: kinds.map { names[$0] },
            rootIndex: root, tableName: names[root], storesKind: parents[i] != nil || !children[i].isEmpty,
            searchColumns: searchColumns)
    }

    /// Entities of one hierarchy share a table: a column name used by two of them must mean
    /// the same column (same type; for a to-one, same destination and inverse).
    static func checkSharedColumns(_ entities: [EntityDescription]) throws(StrataError) {
        var byTable: [String: [String: (definition: String, entity: String)]] = [:]
        for entity in entities where entity.hierarchy.storesKind {
            for column in entity.columns {
                let name: String, definition: String
                switch column {
                case .attribute(let i): (name, definition) = (entity.attributes[i].name, entity.attributes[i].type.rawValue)
                case .foreignKey(let r):
                    // The inverse too: siblings' to-ones of one name with different inverses would
                    // share a column, and each inverse to-many would read the other's rows.
                    let relationship = entity.relationships[r]
                    (name, definition) = (relationship.name, "to-one \(relationship.destination) (inverse \(relationship.inverse))")
                case .order(let r): (name, definition) = (entity.relationships[r].foreignKeyOrderColumn ?? "_order_\(entity.relationships[r].name)", "order")
                }
                if let seen = byTable[entity.tableName]?[name] {
                    guard seen.definition == definition else {
                        throw StrataError(.invalidModel, "\(entity.name).\(name) and \(seen.entity).\(name) share \(entity.tableName)'s table but differ (\(definition), \(seen.definition)); give one another name.", entity: entity.name, key: name)
                    }
                } else {
                    byTable[entity.tableName, default: [:]][name] = (definition, entity.name)
                }
            }
        }
    }

    private static func padded<T>(_ values: [T?], _ count: Int) -> [T?] {
        values.count == count ? values : Array(repeating: nil, count: count)
    }
}

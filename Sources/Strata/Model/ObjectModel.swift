/// A validated set of entities with a stable version hash.
///
/// Build it from typed classes or from descriptions; either way it checks itself: every
/// relationship needs an inverse that points back, names must be legal and unique, a
/// transformable attribute needs a transformer.
///
/// For example:
/// ```swift
/// let model = try ObjectModel(Folder.self, Note.self)
/// print(model.versionHash)
/// ```
public final class ObjectModel: Sendable, CustomStringConvertible {
    /// The entities, sorted by name.
    public let entities: [EntityDescription]
    /// A hash of everything that shapes the store; equal models have equal hashes across
    /// processes and machines.
    public let versionHash: String

    let entityIndexByName: [String: Int]
    let entityIndexByClass: [ObjectIdentifier: Int]

    /// Builds a model from typed `ManagedObject` subclasses (their `@Attribute` and
    /// `@Relationship` wrappers describe the entities).
    public convenience init(_ classes: ManagedObject.Type...) throws(StrataError) {
        try self.init(classes: classes)
    }

    /// Builds a model from typed `ManagedObject` subclasses.
    public convenience init(classes: [ManagedObject.Type]) throws(StrataError) {
        var specs: [EntitySpec] = []
        for cls in classes { specs.append(try EntitySpec(describing: cls)) }
        try self.init(specs: specs)
    }

    /// Builds a model from entity descriptions written in code.
    public convenience init(entities: [EntityDescription]) throws(StrataError) {
        try self.init(specs: entities.map { entity in
            let attributes = entity.attributes.map { attribute in
                var resolved = attribute
                if resolved.transformer == nil, let name = resolved.transformerName {
                    resolved.transformer = TransformerRegistry.shared.transformer(named: name)
                }
                return resolved
            }
            return EntitySpec(name: entity.name, attributes: attributes, relationships: entity.relationships,
                              managedClass: entity.managedClass,
                              attributeConversions: entity.attributeConversions, relationshipConversions: entity.relationshipConversions,
                              renamingIdentifier: entity.renamingIdentifier,
                              superentity: entity.superentityName, isAbstract: entity.isAbstract)
        })
    }

    /// Refuses a default value that an attribute of its type cannot hold (text for an
    /// integer, an integer out of `int16` range, a NaN date, an object ID): every inserted
    /// object would take it, every save would write it and every later read of the row would
    /// fail. An integer default of a `double` attribute is taken as that double, as a batch
    /// insert takes such a value: returns the value to keep when it changes.
    private static func checkedDefault(of attribute: AttributeDescription, entity: String) throws(StrataError) -> PropertyValue? {
        let value = attribute.defaultValue
        if attribute.type == .double, case .integer(let number) = value { return .double(Double(number)) }
        if let problem = value.storageProblem(for: attribute.type) {
            throw StrataError(.invalidModel, "The default value of \(entity).\(attribute.name) cannot be stored: \(problem).", entity: entity, key: attribute.name)
        }
        guard value.fits(attribute.type) else {
            throw StrataError(.invalidModel, "The default value of \(entity).\(attribute.name), \(value), is not a value of a \(attribute.type.rawValue) attribute.", entity: entity, key: attribute.name)
        }
        return nil
    }

    init(specs unsorted: [EntitySpec]) throws(StrataError) {
        var specs = unsorted.sorted { $0.name < $1.name }
        var byName: [String: Int] = [:]
        var folded = Set<String>()   // SQLite's table, column and trigger names ignore case
        for (i, spec) in specs.enumerated() {
            try Self.checkName(spec.name, what: "entity", entity: spec.name)
            guard byName.updateValue(i, forKey: spec.name) == nil else {
                throw StrataError(.invalidModel, "Two entities are named \(spec.name).", entity: spec.name)
            }
            guard folded.insert(spec.name.lowercased()).inserted else {
                throw StrataError(.invalidModel, "Two entities are named \(spec.name) but for case; their tables would be one in SQLite, which ignores the case of names.", entity: spec.name)
            }
        }
        let inheritance = try ModelInheritance(specs: specs, byName: byName)
        let inheritedRelationships = try inheritance.flatten(&specs)
        var resolvedRelationships = specs.map(\.relationships)
        for (e, spec) in specs.enumerated() {
            var keys = Set<String>()   // folded to lowercase: SQLite's column names ignore case
            for (i, a) in spec.attributes.enumerated() {
                try Self.checkName(a.name, what: "attribute", entity: spec.name)
                if let kept = try Self.checkedDefault(of: a, entity: spec.name) { specs[e].attributes[i].defaultValue = kept }
                guard keys.insert(a.name.lowercased()).inserted else {
                    throw StrataError(.invalidModel, "\(spec.name) has two properties named \(a.name) (names differing only in case count as one: SQLite's column names ignore case).", entity: spec.name, key: a.name)
                }
                if a.isSearchable && a.type != .string {
                    throw StrataError(.invalidModel, "Searchable attribute \(spec.name).\(a.name) is \(a.type); only string attributes can be searchable.", entity: spec.name, key: a.name)
                }
                if a.type == .transformable && a.transformer == nil {
                    throw StrataError(.invalidModel, "Transformable attribute \(spec.name).\(a.name) has no transformer registered under \(a.transformerName?.rawValue ?? "nil").", entity: spec.name, key: a.name)
                }
            }
            for (r, rel) in spec.relationships.enumerated() {
                try Self.checkName(rel.name, what: "relationship", entity: spec.name)
                guard keys.insert(rel.name.lowercased()).inserted else {
                    throw StrataError(.invalidModel, "\(spec.name) has two properties named \(rel.name) (names differing only in case count as one: SQLite's column names ignore case).", entity: spec.name, key: rel.name)
                }
                // An inherited relationship is its superentity's, resolved there (same slot).
                guard r >= inheritedRelationships[e] else { continue }
                guard let d = byName[rel.destination] else {
                    throw StrataError(.invalidModel, "\(spec.name).\(rel.name) points to unknown entity \(rel.destination).", entity: spec.name, key: rel.name)
                }
                guard let inv = specs[d].relationships.firstIndex(where: { $0.name == rel.inverse }) else {
                    throw StrataError(.invalidModel, "\(spec.name).\(rel.name) names inverse \(rel.inverse), which \(rel.destination) does not have.", entity: spec.name, key: rel.name)
                }
                let inverse = specs[d].relationships[inv]
                guard inverse.destination == spec.name, inverse.inverse == rel.name else {
                    throw StrataError(.invalidModel, "\(spec.name).\(rel.name) and \(rel.destination).\(rel.inverse) are not each other's inverse.", entity: spec.name, key: rel.name)
                }
                guard !rel.isOrdered || rel.isToMany else {
                    throw StrataError(.invalidModel, "\(spec.name).\(rel.name) is ordered but not to-many.", entity: spec.name, key: rel.name)
                }
                resolvedRelationships[e][r].destinationIndex = d
                resolvedRelationships[e][r].inverseIndex = inv
                resolvedRelationships[e][r].inverseIsToMany = inverse.isToMany
                resolvedRelationships[e][r].storage = Self.storage(of: rel, in: spec.name, inverse: inverse)
                if !rel.isToMany, inverse.isOrdered { resolvedRelationships[e][r].foreignKeyOrderColumn = "_order_\(rel.name)" }
            }
        }
        for e in inheritance.order {
            guard let p = inheritance.parents[e] else { continue }
            for r in 0..<inheritedRelationships[e] { resolvedRelationships[e][r] = resolvedRelationships[p][r] }
        }
        try Self.resolveDerivations(&specs, byName: byName)
        var entities: [EntityDescription] = []
        var byClass: [ObjectIdentifier: Int] = [:]
        for (i, spec) in specs.enumerated() {
            let hierarchy = inheritance.hierarchy(of: i, specs: specs)
            entities.append(EntityDescription(
                name: spec.name, attributes: spec.attributes, relationships: resolvedRelationships[i],
                managedClass: spec.managedClass, index: i,
                attributeConversions: spec.attributeConversions, relationshipConversions: spec.relationshipConversions,
                renamingIdentifier: spec.renamingIdentifier,
                superentityName: inheritance.parents[i].map { specs[$0].name },
                isAbstract: inheritance.isAbstract(i, specs: specs), hierarchy: hierarchy))
            if spec.managedClass != ManagedObject.self {
                guard byClass.updateValue(i, forKey: ObjectIdentifier(spec.managedClass)) == nil else {
                    throw StrataError(.invalidModel, "Class \(spec.managedClass) is used by two entities.", entity: spec.name)
                }
            }
        }
        try ModelInheritance.checkSharedColumns(entities)
        self.entities = entities
        self.entityIndexByName = byName
        self.entityIndexByClass = byClass
        self.versionHash = ModelHasher.hash(entities)
    }

    /// The entity named `name`, if any.
    public func entity(named name: String) -> EntityDescription? {
        entityIndexByName[name].map { entities[$0] }
    }

    /// The entity whose objects are instances of `type`, if any.
    public func entity(for type: ManagedObject.Type) -> EntityDescription? {
        entityIndexByClass[ObjectIdentifier(type)].map { entities[$0] }
    }

    public var description: String { "ObjectModel(\(entities.map(\.name).joined(separator: ", ")); \(versionHash))" }

    /// Where `rel` (of entity `entity`) lives in SQLite.
    private static func storage(of rel: RelationshipDescription, in entity: String, inverse: RelationshipDescription) -> RelationshipStorage {
        let selfIsOwner = (entity, rel.name) <= (rel.destination, inverse.name)
        switch (rel.isToMany, inverse.isToMany) {
        case (false, true):
            return .foreignKey(column: rel.name)
        case (true, false):
            return .inverseForeignKey(column: inverse.name, orderColumn: rel.isOrdered ? "_order_\(inverse.name)" : nil)
        case (false, false):
            return selfIsOwner ? .foreignKey(column: rel.name) : .inverseForeignKey(column: inverse.name, orderColumn: nil)
        case (true, true):
            let table = selfIsOwner ? "_join_\(entity)_\(rel.name)" : "_join_\(rel.destination)_\(inverse.name)"
            return .joinTable(JoinTable(
                name: table,
                ownColumn: selfIsOwner ? "source" : "target",
                otherColumn: selfIsOwner ? "target" : "source",
                ownOrderColumn: rel.isOrdered ? (selfIsOwner ? "source_order" : "target_order") : nil,
                isOwner: selfIsOwner))
        }
    }

    /// Names start with a letter and hold letters, digits and underscores; names starting
    /// with `_` are Strata's own columns and tables.
    private static func checkName(_ name: String, what: String, entity: String) throws(StrataError) {
        guard let first = name.unicodeScalars.first, first.properties.isAlphabetic, first.isASCII,
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_") })
        else {
            throw StrataError(.invalidModel, "\"\(name)\" is not a legal \(what) name: use ASCII letters, digits and _, starting with a letter.", entity: entity, key: what == "entity" ? nil : name)
        }
    }
}

/// An entity before resolution: what a class or a description says.
struct EntitySpec {
    var name: String
    var attributes: [AttributeDescription]
    var relationships: [RelationshipDescription]
    var managedClass: ManagedObject.Type
    var attributeConversions: [(any AttributeConversion.Type)?]
    var relationshipConversions: [(any RelationshipConversion.Type)?]
    /// The entity's name in an older model, if it was renamed.
    var renamingIdentifier: String? = nil
    /// The superentity's name, when the spec names it (descriptions).
    var superentity: String? = nil
    /// Whether the spec asks to be abstract (resolved by ``ModelInheritance/isAbstract(_:specs:)``).
    var isAbstract = false
    /// For typed classes: the Swift superclasses, nearest first, up to `ManagedObject`; the
    /// nearest one in the model is the superentity.
    var superclasses: [ObjectIdentifier] = []
}

extension ObjectModel {
    /// Parses and checks every derived attribute's expression against the model: the
    /// relationship and attribute it names exist, the relationship's cardinality fits the
    /// expression, and the value types fit. Derived attributes are always optional (an
    /// aggregate over no members is nil).
    static func resolveDerivations(_ specs: inout [EntitySpec], byName: [String: Int]) throws(StrataError) {
        for e in specs.indices {
            for a in specs[e].attributes.indices {
                guard let expression = specs[e].attributes[a].derivationExpression else { continue }
                let entity = specs[e].name, key = specs[e].attributes[a].name
                func refuse(_ why: String) -> StrataError {
                    StrataError(.invalidModel, "Derived attribute \(entity).\(key) (\(expression)): \(why).", entity: entity, key: key)
                }
                guard let derivation = Derivation(parsing: expression) else {
                    throw refuse("not a supported derivation expression; use relationship.attribute, relationship.@count, relationship.@sum.attribute (@min, @max, @avg), lowercase:(attribute), uppercase:(attribute) or canonical:(attribute)")
                }
                let own = specs[e].attributes[a]
                if own.isUnique || own.isSearchable || own.type == .transformable {
                    throw refuse("a derived attribute cannot be unique, searchable or transformable")
                }
                var source = specs[e]
                if let name = derivation.relationship {
                    guard let relationship = specs[e].relationships.first(where: { $0.name == name }) else {
                        throw refuse("\(entity) has no relationship \(name)")
                    }
                    let wantsToMany = if case .toMany = derivation { true } else { false }
                    guard relationship.isToMany == wantsToMany else {
                        throw refuse(wantsToMany ? "\(name) is to-one; aggregates need a to-many" : "\(name) is to-many; a key path needs a to-one (use an aggregate: \(name).@count)")
                    }
                    guard let d = byName[relationship.destination] else { throw refuse("\(name) points to unknown entity \(relationship.destination)") }
                    source = specs[d]
                }
                let sourceType: AttributeType?
                if let attributeName = derivation.attribute {
                    guard let attribute = source.attributes.first(where: { $0.name == attributeName }) else {
                        throw refuse("\(source.name) has no attribute \(attributeName)")
                    }
                    guard !attribute.isDerived else { throw refuse("\(source.name).\(attributeName) is derived itself; derive from stored attributes") }
                    guard attribute.type != .transformable else { throw refuse("\(source.name).\(attributeName) is transformable") }
                    sourceType = attribute.type
                } else {
                    sourceType = nil
                }
                try checkTypes(derivation, own: own.type, source: sourceType, refuse: refuse)
                specs[e].attributes[a].derivation = derivation
                specs[e].attributes[a].isOptional = true
            }
        }
    }

    private static func checkTypes(_ derivation: Derivation, own: AttributeType, source: AttributeType?,
                                   refuse: (String) -> StrataError) throws(StrataError) {
        let integers: Set<AttributeType> = [.int16, .int32, .int64]
        switch derivation {
        case .function:
            guard source == .string, own == .string else { throw refuse("string functions take and give strings") }
        case .toOne:
            guard source == own else { throw refuse("the derived attribute is \(own) but the value is \(source.map { "\($0)" } ?? "none")") }
        case .toMany(.count, _, _):
            guard integers.contains(own) else { throw refuse("a count is an integer attribute") }
        case .toMany(.avg, _, _):
            guard let source, integers.contains(source) || source == .double, own == .double else {
                throw refuse("@avg averages an integer or double attribute into a double attribute")
            }
        case .toMany(.sum, _, _):
            guard let source, integers.contains(source) || source == .double, own == source || (integers.contains(own) && integers.contains(source)) || own == .double else {
                throw refuse("@sum adds an integer or double attribute into an attribute of its type (or a double)")
            }
        case .toMany(.min, _, _), .toMany(.max, _, _):
            guard let source, integers.contains(source) || source == .double || source == .date || source == .string, source == own else {
                throw refuse("@min and @max take an integer, double, date or string attribute into an attribute of the same type")
            }
        }
    }
}

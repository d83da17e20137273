import Foundation

extension ObjectPredicate {
    /// Resolves the predicate against `entity` of `model`: checks every key path and every
    /// value's type, and converts constants once. Throws `.malformedPredicate` naming the key.
    func compiled(for entity: EntityDescription, in model: ObjectModel) throws(StrataError) -> CompiledPredicate {
        let compiler = PredicateCompiler(model: model)
        return CompiledPredicate(entity: entity, model: model, root: try compiler.compile(node, on: entity))
    }
}

/// Turns a ``PredicateNode`` into a ``CompiledPredicate/Node``.
struct PredicateCompiler {
    let model: ObjectModel

    /// Compiles `node` on `entity`; `scope` holds the variables of the enclosing SUBQUERYs,
    /// innermost last (`entity` is then the innermost variable's entity).
    func compile(_ node: PredicateNode, on entity: EntityDescription, scope: [String] = []) throws(StrataError) -> CompiledPredicate.Node {
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let inner): return .not(try compile(inner, on: entity, scope: scope))
        case .and(let nodes):
            var compiled: [CompiledPredicate.Node] = []
            for n in nodes { compiled.append(try compile(n, on: entity, scope: scope)) }
            return .and(compiled)
        case .or(let nodes):
            var compiled: [CompiledPredicate.Node] = []
            for n in nodes { compiled.append(try compile(n, on: entity, scope: scope)) }
            return .or(compiled)
        case .comparison(let comparison):
            let path = try unscoped(comparison, scope, entity)
            if case .variable(let name) = comparison.value {
                throw error("$\(name) has no value: give it one with withSubstitutionVariables(_:) before the predicate is used.", comparison, entity)
            }
            if case .keyPath(let other) = comparison.value {
                var right = comparison
                right.keyPath = other
                return try compileKeyPaths(comparison, path, try unscoped(right, scope, entity), on: entity)
            }
            if let subquery = comparison.subquery {
                return try compileSubquery(comparison, subquery, path: path, on: entity, scope: scope)
            }
            return try compile(comparison, path: path, quantifier: comparison.quantifier, on: entity)
        }
    }

    /// The key path of `c` without its variable: inside a SUBQUERY it must start with the
    /// innermost variable; outside, no variable is known.
    private func unscoped(_ c: PredicateComparison, _ scope: [String], _ entity: EntityDescription) throws(StrataError) -> ArraySlice<String> {
        let path = c.keyPath[...]
        guard let first = path.first, first.hasPrefix("$") else {
            if let innermost = scope.last {
                throw error("A key path inside SUBQUERY must start with its variable, as in \(innermost).\(c.keyPath.joined(separator: ".")).", c, entity)
            }
            return path
        }
        guard let innermost = scope.last else {
            throw error("Unknown variable \(first): variables exist only inside SUBQUERY.", c, entity)
        }
        guard first == innermost else {
            if scope.contains(first) {
                throw error("\(first) is the variable of an enclosing SUBQUERY; key paths inside a SUBQUERY can start only with its own variable \(innermost).", c, entity)
            }
            throw error("Unknown variable \(first); this SUBQUERY's variable is \(innermost).", c, entity)
        }
        return path.dropFirst()
    }

    /// `SUBQUERY(path, $v, predicate).@count op value`: `path` is to-one steps then one to-many.
    private func compileSubquery(
        _ c: PredicateComparison, _ subquery: PredicateSubquery, path: ArraySlice<String>, on root: EntityDescription, scope: [String]
    ) throws(StrataError) -> CompiledPredicate.Node {
        guard !scope.contains(subquery.variable) else {
            throw error("SUBQUERY variable \(subquery.variable) is already the variable of an enclosing SUBQUERY; give each SUBQUERY its own.", c, root)
        }
        guard c.quantifier == nil else { throw error("\(c.quantifier?.rawValue ?? "") cannot apply to SUBQUERY(…).@count.", c, root) }
        var steps: [ResolvedKeyPath.Step] = []
        var entity = root
        for (offset, key) in path.enumerated() {
            guard case .relationship(let r)? = entity.propertyIndex[key] else {
                throw error("SUBQUERY needs a to-many relationship key path; \(entity.name) has no relationship \"\(key)\".", c, entity)
            }
            let relationship = entity.relationships[r]
            let destination = model.entities[relationship.destinationIndex]
            if offset < path.count - 1 {
                guard !relationship.isToMany else {
                    throw error("SUBQUERY's key path may pass through to-one relationships only; \(entity.name).\(key) is to-many.", c, entity)
                }
                steps.append(.init(relationshipIndex: r, source: entity, destination: destination))
                entity = destination
                continue
            }
            guard relationship.isToMany else {
                throw error("SUBQUERY needs a to-many relationship; \(entity.name).\(key) is to-one.", c, entity)
            }
            let inner = try compile(subquery.predicate, on: destination, scope: scope + [subquery.variable])
            return try makeTest(c, ResolvedKeyPath(steps: steps, endEntity: entity, terminal: .subqueryCount(r, inner)), entity)
        }
        throw error("SUBQUERY needs a to-many relationship key path as its first argument.", c, entity)
    }

    /// The key path after a collection operator (`price` in `items.@sum.price`): to-one steps
    /// from `root`, then a number attribute.
    private func aggregated(_ c: PredicateComparison, _ path: ArraySlice<String>, on root: EntityDescription, _ op: CollectionOperator) throws(StrataError) -> ResolvedKeyPath {
        var steps: [ResolvedKeyPath.Step] = []
        var entity = root
        for (offset, key) in path.enumerated() {
            let isLast = offset == path.count - 1
            switch entity.propertyIndex[key] {
            case .attribute(let a)? where isLast:
                switch entity.attributes[a].type {
                case .int16, .int32, .int64, .double, .decimal:
                    return ResolvedKeyPath(steps: steps, endEntity: entity, terminal: .attribute(a))
                default:
                    throw error("\(op.rawValue) needs a number attribute; \(entity.name).\(key) is \(entity.attributes[a].type.rawValue).", c, entity)
                }
            case .relationship(let r)? where !isLast && !entity.relationships[r].isToMany:
                let destination = model.entities[entity.relationships[r].destinationIndex]
                steps.append(.init(relationshipIndex: r, source: entity, destination: destination))
                entity = destination
            default:
                throw error("\(op.rawValue) needs a key path of to-one relationships ending at a number attribute; \(entity.name).\(key) is not one.", c, entity)
            }
        }
        throw error("\(op.rawValue) needs a key after it, as in items.\(op.rawValue).price.", c, entity)
    }

    private func error(_ message: String, _ c: PredicateComparison, _ entity: EntityDescription) -> StrataError {
        StrataError(.malformedPredicate, message, entity: entity.name, key: c.keyPath.joined(separator: "."))
    }

    /// Compiles `c` reading `path` from `entity` (`path` is empty for a to-many's element itself).
    private func compile(
        _ c: PredicateComparison, path: ArraySlice<String>, quantifier: PredicateQuantifier?, on root: EntityDescription
    ) throws(StrataError) -> CompiledPredicate.Node {
        var steps: [ResolvedKeyPath.Step] = []
        var entity = root
        var terminal = ResolvedKeyPath.Terminal.selfID
        var index = path.startIndex
        while index < path.endIndex {
            let key = path[index]
            let isLast = index == path.endIndex - 1
            guard !key.hasPrefix("@") else { throw error("\(key) must follow a to-many relationship.", c, entity) }
            guard let ref = entity.propertyIndex[key] else {
                throw error("\(entity.name) has no key \"\(key)\".", c, entity)
            }
            switch ref {
            case .attribute(let a):
                guard isLast else { throw error("\(entity.name).\(key) is an attribute, not a relationship; it cannot be followed by more keys.", c, entity) }
                terminal = .attribute(a)
            case .relationship(let r):
                let relationship = entity.relationships[r]
                let destination = model.entities[relationship.destinationIndex]
                if !relationship.isToMany {
                    if isLast {
                        terminal = .toOneID(r)
                    } else {
                        steps.append(.init(relationshipIndex: r, source: entity, destination: destination))
                        entity = destination
                    }
                } else if path.index(after: index) < path.endIndex && path[path.index(after: index)] == "@count" {
                    guard index + 1 == path.endIndex - 1 else { throw error("@count must end the key path.", c, entity) }
                    guard quantifier == nil else { throw error("\(quantifier?.rawValue ?? "") cannot apply to @count.", c, entity) }
                    terminal = .count(r)
                    index += 1
                } else if path.index(after: index) < path.endIndex, let op = CollectionOperator(rawValue: path[path.index(after: index)]) {
                    guard quantifier == nil else { throw error("\(quantifier?.rawValue ?? "") cannot apply to \(op.rawValue).", c, entity) }
                    terminal = .aggregate(op, r, try aggregated(c, path[(index + 2)...], on: destination, op))
                    index = path.endIndex - 1
                } else {
                    let inner = try compile(c, path: path[(index + 1)...], quantifier: nil, on: destination)
                    return .quantified(quantifier ?? .any, steps: steps, owner: entity, relationshipIndex: r, inner: inner)
                }
            }
            index += 1
        }
        if let quantifier, !path.isEmpty {
            throw error("\(quantifier.rawValue) needs a key path through a to-many relationship.", c, entity)
        }
        let keyPath = ResolvedKeyPath(steps: steps, endEntity: entity, terminal: terminal)
        return try makeTest(c, keyPath, entity)
    }

    /// `left op right`, two key paths of the same object: each through to-ones only, both
    /// holding values of one kind.
    private func compileKeyPaths(
        _ c: PredicateComparison, _ left: ArraySlice<String>, _ right: ArraySlice<String>, on entity: EntityDescription
    ) throws(StrataError) -> CompiledPredicate.Node {
        guard c.quantifier == nil else {
            throw error("\(c.quantifier?.rawValue ?? "") cannot apply to a comparison of two key paths; use SUBQUERY.", c, entity)
        }
        let lhs = try scalarKeyPath(c, c.keyPath, left, on: entity)
        guard case .keyPath(let rightKeys) = c.value else { throw error("Expected a key path on the right.", c, entity) }
        let rhs = try scalarKeyPath(c, rightKeys, right, on: entity)
        let domain = try self.domain(of: lhs, c)
        guard try self.domain(of: rhs, c) == domain else {
            throw error("\(PredicateFormatter.format(.comparison(c))) compares values of different kinds.", c, entity)
        }
        if domain != .numeric && domain != .text && !(c.op == .equalTo || c.op == .notEqualTo) {
            throw error("\(c.op.rawValue) cannot compare \(domain == .data ? "data" : "objects"); use == or !=.", c, entity)
        }
        return .compare(KeyPathComparison(lhs: lhs, rhs: rhs, domain: domain, op: c.op, options: c.options))
    }

    /// `path` (written as `keys`) resolved to one value per object: through to-ones only.
    private func scalarKeyPath(
        _ c: PredicateComparison, _ keys: [String], _ path: ArraySlice<String>, on entity: EntityDescription
    ) throws(StrataError) -> ResolvedKeyPath {
        var probe = c
        probe.keyPath = keys
        probe.op = .equalTo
        probe.value = .single(.null)
        guard case .test(let keyPath, _) = try compile(probe, path: path, quantifier: nil, on: entity) else {
            throw error("A key path compared with another key path cannot pass through a to-many relationship; use SUBQUERY, or ANY with a value.", probe, entity)
        }
        return keyPath
    }

    /// How the values of `keyPath` compare.
    private func domain(of keyPath: ResolvedKeyPath, _ c: PredicateComparison) throws(StrataError) -> ComparisonTest.Domain {
        let entity = keyPath.endEntity
        switch keyPath.terminal {
        case .attribute(let a):
            switch entity.attributes[a].type {
            case .string, .uuid, .url: return .text
            case .data: return .data
            case .transformable: throw error("Transformable attribute \(entity.name).\(entity.attributes[a].name) cannot be compared.", c, entity)
            default: return .numeric
            }
        case .count, .subqueryCount, .aggregate: return .numeric
        case .toOneID(let r): return .object(entity.relationships[r].destinationIndex)
        case .selfID: return .object(entity.index)
        }
    }

    private func makeTest(_ c: PredicateComparison, _ keyPath: ResolvedKeyPath, _ entity: EntityDescription) throws(StrataError) -> CompiledPredicate.Node {
        let domain = try self.domain(of: keyPath, c)
        if c.op.isStringOperator && domain != .text {
            throw error("\(c.op.rawValue) needs a string key path.", c, entity)
        }
        if !c.options.isEmpty && domain != .text {
            throw error("[c] and [d] apply to strings only.", c, entity)
        }
        if domain != .numeric && domain != .text && !(c.op == .equalTo || c.op == .notEqualTo || c.op == .in) {
            throw error("\(c.op.rawValue) cannot compare \(domain == .data ? "data" : "objects"); use ==, != or IN.", c, entity)
        }
        if c.op == .matches && c.options.contains(.diacriticInsensitive) {
            throw error("MATCHES does not support [d].", c, entity)
        }
        let values: [PropertyValue]
        switch c.value {
        case .single(let v): values = [v]
        case .list(let vs): values = vs
        case .keyPath, .variable: throw error("Expected a value on the right of \(c.op.rawValue).", c, entity)
        }
        var constants: [ComparisonTest.Scalar?] = []
        for value in values {
            constants.append(try scalar(value, domain, c, entity))
        }
        let foldsConstants = domain == .text && c.op != .matches
        if foldsConstants && !c.options.isEmpty {
            constants = constants.map { constant in
                if case .text(let s)? = constant { return .text(PredicateFunctions.fold(s, c.options)) }
                return constant
            }
        }
        if c.op == .in { constants = constants.filter { $0 != nil } }
        if c.op != .equalTo && c.op != .notEqualTo && c.op != .in && constants.contains(where: { $0 == nil }) {
            return .constant(false)  // an ordering, BETWEEN or string operator with nil is false
        }
        var regex: NSRegularExpression?
        if c.op == .matches, case .text(let pattern)? = constants.first {
            guard let compiled = PredicateFunctions.makeRegex(pattern, c.options) else {
                throw error("MATCHES pattern \"\(pattern)\" is not a valid regular expression.", c, entity)
            }
            regex = compiled
        }
        return .test(keyPath, ComparisonTest(domain: domain, op: c.op, options: c.options, constants: constants, regex: regex))
    }

    private func scalar(_ value: PropertyValue, _ domain: ComparisonTest.Domain, _ c: PredicateComparison, _ entity: EntityDescription) throws(StrataError) -> ComparisonTest.Scalar? {
        if value.isNull { return nil }
        switch domain {
        case .numeric:
            if let number = value.numericValue { return .number(number) }
        case .text:
            if let text = value.comparableText { return .text(text) }
        case .data:
            if case .data(let d) = value { return .data(d) }
        case .object(let entityIndex):
            if case .objectID(let id) = value {
                guard id.entity.isKind(of: model.entities[entityIndex]) else {
                    throw error("\(id) is not an object of \(model.entities[entityIndex].name).", c, entity)
                }
                return .object(id)
            }
        }
        throw error("\(value) cannot be compared with this key path.", c, entity)
    }
}


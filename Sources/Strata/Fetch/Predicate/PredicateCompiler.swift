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

    func compile(_ node: PredicateNode, on entity: EntityDescription) throws(StrataError) -> CompiledPredicate.Node {
        switch node {
        case .constant(let value): return .constant(value)
        case .not(let inner): return .not(try compile(inner, on: entity))
        case .and(let nodes):
            var compiled: [CompiledPredicate.Node] = []
            for n in nodes { compiled.append(try compile(n, on: entity)) }
            return .and(compiled)
        case .or(let nodes):
            var compiled: [CompiledPredicate.Node] = []
            for n in nodes { compiled.append(try compile(n, on: entity)) }
            return .or(compiled)
        case .comparison(let comparison):
            return try compile(comparison, path: comparison.keyPath[...], quantifier: comparison.quantifier, on: entity)
        }
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
            guard key != "@count" else { throw error("@count must follow a to-many relationship.", c, entity) }
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

    private func makeTest(_ c: PredicateComparison, _ keyPath: ResolvedKeyPath, _ entity: EntityDescription) throws(StrataError) -> CompiledPredicate.Node {
        let domain: ComparisonTest.Domain
        switch keyPath.terminal {
        case .attribute(let a):
            let type = entity.attributes[a].type
            switch type {
            case .string, .uuid, .url: domain = .text
            case .data: domain = .data
            case .transformable: throw error("Transformable attribute \(entity.name).\(entity.attributes[a].name) cannot be compared.", c, entity)
            default: domain = .numeric
            }
        case .count: domain = .numeric
        case .toOneID(let r): domain = .object(entity.relationships[r].destinationIndex)
        case .selfID: domain = .object(entity.index)
        }
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
                guard id.entity.index == entityIndex else {
                    throw error("\(id) is not an object of \(model.entities[entityIndex].name).", c, entity)
                }
                return .object(id)
            }
        }
        throw error("\(value) cannot be compared with this key path.", c, entity)
    }
}


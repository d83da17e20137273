extension ObjectPredicate {
    /// A copy with each `$variable` replaced by the value of `variables` under its name (without
    /// the `$`), as Core Data's `withSubstitutionVariables(_:)`. A template parsed once can so
    /// be filled in many times. Values are those `%@` takes: strings, numbers, dates, object
    /// IDs, managed objects, arrays of them for `IN`, nil.
    ///
    /// Throws `.malformedPredicate` when a variable has no value, or a value that does not fit
    /// its operator (an array after `==`, a number after `BEGINSWITH`). A predicate still holding
    /// a variable cannot be used in a fetch (`.malformedPredicate` naming the variable).
    ///
    /// For example:
    /// ```swift
    /// let template = try ObjectPredicate("rating >= $minimum AND folder == $folder")
    /// let predicate = try template.withSubstitutionVariables(["minimum": 3, "folder": inbox])
    /// ```
    public func withSubstitutionVariables(_ variables: [String: Any?]) throws(StrataError) -> ObjectPredicate {
        ObjectPredicate(node: try Self.substitute(node, variables))
    }

    /// The names (without `$`) of the variables still waiting for a value.
    ///
    /// For example:
    /// ```swift
    /// try ObjectPredicate("rating >= $minimum").variableNames   // ["minimum"]
    /// ```
    public var variableNames: Set<String> {
        var names = Set<String>()
        Self.collectVariables(node, into: &names)
        return names
    }

    private static func substitute(_ node: PredicateNode, _ variables: [String: Any?]) throws(StrataError) -> PredicateNode {
        switch node {
        case .constant: return node
        case .not(let inner): return .not(try substitute(inner, variables))
        case .and(let nodes):
            var result: [PredicateNode] = []
            for n in nodes { result.append(try substitute(n, variables)) }
            return .and(result)
        case .or(let nodes):
            var result: [PredicateNode] = []
            for n in nodes { result.append(try substitute(n, variables)) }
            return .or(result)
        case .comparison(var c):
            if case .variable(let name) = c.value {
                guard let entry = variables[name] else {
                    throw StrataError(.malformedPredicate, "No value for $\(name) among the substitution variables.", key: name)
                }
                guard let operand = PredicateArgument.operand(entry) else {
                    throw StrataError(.malformedPredicate, "$\(name): \(type(of: entry as Any)) is not a value a predicate takes.", key: name)
                }
                do {
                    try PredicateParser.check(operand, after: c.op, at: nil)
                } catch {
                    throw StrataError(.malformedPredicate, "$\(name): \(error.message)", key: name)
                }
                c.value = operand
            }
            if var subquery = c.subquery {
                subquery.predicate = try substitute(subquery.predicate, variables)
                c.subquery = subquery
            }
            return .comparison(c)
        }
    }

    private static func collectVariables(_ node: PredicateNode, into names: inout Set<String>) {
        switch node {
        case .constant: return
        case .not(let inner): collectVariables(inner, into: &names)
        case .and(let nodes), .or(let nodes): for n in nodes { collectVariables(n, into: &names) }
        case .comparison(let c):
            if case .variable(let name) = c.value { names.insert(name) }
            if let subquery = c.subquery { collectVariables(subquery.predicate, into: &names) }
        }
    }
}

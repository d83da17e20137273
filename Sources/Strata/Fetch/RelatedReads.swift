/// What a compiled request reads from objects other than the one it tests: for each chain of
/// relationship hops from the fetched entity, the properties read on the objects at its end.
///
/// A fetch with pending changes uses it to find the objects whose predicate or sort values
/// may differ from what SQL sees: those that reach, through one of these chains, an unsaved
/// object whose read property changed (or that is inserted or deleted).
struct RelatedReads {
    /// One relationship hop: relationship `relationship` of entity number `entity`.
    struct Hop: Hashable {
        var entity: Int
        var relationship: Int
    }

    /// Property slots (attributes, then relationships after them, as `changedProperties`
    /// numbers them) read on the objects reached by each chain of one or more hops. An empty
    /// set means only the objects' identity is read.
    private(set) var slotsByChain: [[Hop]: Set<Int>] = [:]

    init(predicate: CompiledPredicate?, sortKeys: [CompiledSortKey]) {
        if let predicate { add(predicate.root, under: []) }
        for key in sortKeys { add(key.keyPath, under: []) }
    }

    /// Whether nothing beyond the fetched objects themselves is read.
    var isEmpty: Bool { slotsByChain.isEmpty }

    private mutating func read(_ slot: Int?, at chain: [Hop]) {
        guard !chain.isEmpty else { return }   // the fetched object itself: its own changes count anyway
        if let slot { slotsByChain[chain, default: []].insert(slot) } else if slotsByChain[chain] == nil { slotsByChain[chain] = [] }
    }

    private mutating func add(_ node: CompiledPredicate.Node, under chain: [Hop]) {
        switch node {
        case .constant:
            break
        case .not(let inner):
            add(inner, under: chain)
        case .and(let nodes), .or(let nodes):
            for inner in nodes { add(inner, under: chain) }
        case .test(let keyPath, _):
            add(keyPath, under: chain)
        case .compare(let comparison):
            add(comparison.lhs, under: chain)
            add(comparison.rhs, under: chain)
        case .quantified(_, let steps, let owner, let r, let inner):
            let ownerChain = walk(steps, from: chain)
            read(owner.attributes.count + r, at: ownerChain)
            add(inner, under: ownerChain + [Hop(entity: owner.index, relationship: r)])
        }
    }

    private mutating func add(_ keyPath: ResolvedKeyPath, under chain: [Hop]) {
        let end = walk(keyPath.steps, from: chain)
        let attributes = keyPath.endEntity.attributes.count
        switch keyPath.terminal {
        case .attribute(let i): read(i, at: end)
        case .toOneID(let r), .count(let r): read(attributes + r, at: end)
        case .selfID: read(nil, at: end)
        case .subqueryCount(let r, let inner):
            read(attributes + r, at: end)
            add(inner, under: end + [Hop(entity: keyPath.endEntity.index, relationship: r)])
        case .aggregate(_, let r, let inner):
            read(attributes + r, at: end)
            add(inner, under: end + [Hop(entity: keyPath.endEntity.index, relationship: r)])
        }
    }

    /// Follows to-one `steps` from `chain`, recording the relationship read at each object on
    /// the way; returns the chain to the last object.
    private mutating func walk(_ steps: [ResolvedKeyPath.Step], from chain: [Hop]) -> [Hop] {
        var current = chain
        for step in steps {
            read(step.source.attributes.count + step.relationshipIndex, at: current)
            current.append(Hop(entity: step.source.index, relationship: step.relationshipIndex))
        }
        return current
    }
}

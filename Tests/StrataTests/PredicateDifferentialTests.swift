import Foundation
import Testing
@testable import Strata

/// SQL and in-memory evaluation must select exactly the same objects for every predicate.
@Suite struct PredicateDifferentialTests {
    static let seeds = SeededRandom.seeds([1, 42, 2026, 31_337])

    @Test(arguments: seeds) func sqlAndMemoryAgree(seed: UInt64) throws {
        let store = try PredicateTestStore(model: try PredicateTestModel.make())
        var rng = SeededRandom(seed: seed)
        try PredicateFixtures.populate(store, using: &rng)
        let item = store.entity("Item")
        var generator = RandomPredicateGenerator(seed: seed &+ 1, store: store)
        var failures = 0
        var nonTrivial = 0
        var subqueries = 0, collectionOperators = 0, keyPathComparisons = 0
        for n in 0..<1_200 {
            let (format, arguments) = generator.predicate()
            let variables = generator.variables
            if format.contains("SUBQUERY") { subqueries += 1 }
            if ["@sum", "@avg", "@min", "@max"].contains(where: format.contains) { collectionOperators += 1 }
            let predicate: ObjectPredicate
            let compiled: CompiledPredicate
            do {
                let template = try ObjectPredicate(format: format, arguments: arguments)
                #expect(template.variableNames == Set(variables.keys), "seed \(seed) #\(n): \(format)")
                predicate = variables.isEmpty ? template : try template.withSubstitutionVariables(variables)
                if Self.comparesKeyPaths(predicate.node) || !variables.isEmpty { keyPathComparisons += 1 }
                compiled = try predicate.compiled(for: item, in: store.model)
            } catch {
                Issue.record("seed \(seed) #\(n): \(format) \(arguments) \(variables) failed to compile: \(error)")
                failures += 1
                continue
            }
            let sql = try store.sqlKeys(compiled, entity: "Item")
            let memory = store.memoryKeys(compiled, entity: "Item")
            if sql != memory {
                failures += 1
                Issue.record("seed \(seed) #\(n): \(format) \(arguments)\n  parsed: \(predicate)\n  SQL only: \(sql.subtracting(memory).sorted())\n  memory only: \(memory.subtracting(sql).sorted())")
            }
            if !sql.isEmpty && sql.count < store.objects["Item"]?.count ?? 0 { nonTrivial += 1 }
            if !arguments.contains(where: { $0 is ObjectID || $0 is [ObjectID?] || $0 is Data || $0 is [Data] }) {
                let text = predicate.description
                let reparsed = try? ObjectPredicate(text)
                #expect(reparsed?.description == text, "seed \(seed) #\(n): \(format) printed as \(text) does not parse back")
            }
            if failures > 10 { break }
        }
        // The generator must produce selective predicates, or agreement proves little.
        #expect(nonTrivial > 400, "only \(nonTrivial) predicates selected a proper subset")
        #expect(subqueries > 60 && collectionOperators > 60, "\(subqueries) SUBQUERYs, \(collectionOperators) collection operators")
        #expect(keyPathComparisons > 100, "\(keyPathComparisons) predicates compared two key paths or took variables")
    }

    /// Whether `node` holds a comparison of two key paths (SUBQUERYs included).
    static func comparesKeyPaths(_ node: PredicateNode) -> Bool {
        switch node {
        case .constant: false
        case .not(let inner): comparesKeyPaths(inner)
        case .and(let nodes), .or(let nodes): nodes.contains(where: comparesKeyPaths)
        case .comparison(let c):
            if case .keyPath = c.value { true } else { c.subquery.map { comparesKeyPaths($0.predicate) } ?? false }
        }
    }
}

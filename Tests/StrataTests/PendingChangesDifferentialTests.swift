import Foundation
import Testing
@testable import Strata

/// A fetch in a context with unsaved inserts, updates and deletes must return exactly the
/// objects, in exactly the order, that the in-memory evaluator picks among the context's live
/// objects (registered or not, not deleted, inserted ones included). Random predicates and sort
/// keys, random windows, seeded random pending changes over the differential fixtures.
///
/// `STRATA_SEED` replays one seed; `STRATA_LONG=1` runs 40 seeds; `STRATA_PREDICATE_REQUESTS` sets the
/// number of requests per round of changes.
@Suite struct PendingChangesDifferentialTests {
    static let seeds = SeededRandom.seeds(ProcessInfo.processInfo.environment["STRATA_LONG"] == "1" ? Array(1...40) : [5, 77, 2026])

    @Test(arguments: seeds) func fetchAgreesWithLiveObjects(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let model = try PredicateTestModel.make()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(directory.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let requests = iterationCount("STRATA_PREDICATE_REQUESTS", default: 50)
        let (failures, counts) = try await context.perform { () -> ([String], [String: Int]) in
            let fixtures = try PredicateTestStore(model: model)
            var rng = SeededRandom(seed: seed)
            try PredicateFixtures.populate(fixtures, using: &rng)
            let ids = try PendingChangeMaker.copy(fixtures, into: context)
            context.reset()   // start from faults: only what the changes touch gets loaded
            var maker = PendingChangeMaker(context: context, ids: ids, rng: SeededRandom(seed: seed &+ 11))
            var generator = RandomPredicateGenerator(seed: seed &+ 1, store: fixtures)
            var failures: [String] = []
            for round in 0..<3 {
                try maker.apply(steps: 30)
                for n in 0..<requests {
                    let label = "seed \(seed) round \(round) #\(n)"
                    let (failure, selective) = try Self.check(context: context, ids: ids, generator: &generator, rng: &rng, label: label)
                    if let failure { failures.append(failure) }
                    if selective { maker.counts["selective", default: 0] += 1 }
                    if failures.count >= 5 { return (failures, maker.counts) }
                }
            }
            return (failures, maker.counts)
        }
        #expect(["insert", "attribute", "relationship", "delete"].allSatisfy { counts[$0, default: 0] > 0 },
                "seed \(seed): some kind of change never ran: \(counts)")
        // Agreement proves little unless many requests select a proper, non-empty subset.
        #expect(counts["selective", default: 0] > requests, "seed \(seed): only \(counts["selective", default: 0]) selective requests")
        #expect(failures.isEmpty, "\(failures.count) mismatches:\n\(failures.joined(separator: "\n"))")
    }

    /// The same through a child context: the parent holds unsaved changes, the child reads
    /// through it, first with no changes of its own, then with its own on top.
    @Test(arguments: seeds) func childFetchAgreesWithLiveObjects(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let model = try PredicateTestModel.make()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(directory.file()))
        let parent = ObjectContext(.privateQueue, coordinator: coordinator)
        let requests = iterationCount("STRATA_PREDICATE_REQUESTS", default: 40)
        // The parent's live objects by entity (saved and not deleted, then inserted), as IDs.
        let live = try await parent.perform { () -> [String: [ObjectID]] in
            let fixtures = try PredicateTestStore(model: model)
            var rng = SeededRandom(seed: seed)
            try PredicateFixtures.populate(fixtures, using: &rng)
            let ids = try PendingChangeMaker.copy(fixtures, into: parent)
            parent.reset()
            var maker = PendingChangeMaker(context: parent, ids: ids, rng: SeededRandom(seed: seed &+ 13))
            try maker.apply(steps: 30)
            var live: [String: [ObjectID]] = [:]
            for entity in model.entities {
                let saved = (ids[entity.name] ?? []).filter { !parent.object(with: $0).isDeleted }
                live[entity.name] = saved + parent.insertedObjects.filter { $0.entity === entity }.map(\.objectID).sorted(by: Self.byKey)
            }
            return live
        }
        let child = ObjectContext(.privateQueue, parent: parent)
        let (failures, selective) = try await child.perform { () -> ([String], Int) in
            let fixtures = try PredicateTestStore(model: model)
            var rng = SeededRandom(seed: seed)
            try PredicateFixtures.populate(fixtures, using: &rng)   // for the generator's pools and key ranges
            var generator = RandomPredicateGenerator(seed: seed &+ 3, store: fixtures)
            var maker = PendingChangeMaker(context: child, ids: live, rng: SeededRandom(seed: seed &+ 17))
            var failures: [String] = []
            var selective = 0
            for round in 0..<2 {
                if round == 1 { try maker.apply(steps: 20) }
                for n in 0..<requests {
                    let label = "child seed \(seed) round \(round) #\(n)"
                    let (failure, isSelective) = try Self.check(context: child, ids: live, generator: &generator, rng: &rng, label: label)
                    if let failure { failures.append(failure) }
                    if isSelective { selective += 1 }
                    if failures.count >= 5 { return (failures, selective) }
                }
            }
            return (failures, selective)
        }
        #expect(selective > requests / 2, "seed \(seed): only \(selective) selective requests")
        #expect(failures.isEmpty, "\(failures.count) mismatches:\n\(failures.joined(separator: "\n"))")
    }

    /// One random request: `fetch`, `fetchObjectIDs` and `count(for:)` against the oracle.
    /// Returns a description of the mismatch (or nil), and whether the request selected a
    /// proper, non-empty subset of the live objects.
    static func check(context: ObjectContext, ids: [String: [ObjectID]], generator: inout RandomPredicateGenerator,
                      rng: inout SeededRandom, label: String) throws -> (failure: String?, selective: Bool) {
        let model = context.model
        let item = try #require(model.entity(named: "Item"))
        let (format, arguments) = generator.predicate()
        let template = try ObjectPredicate(format: format, arguments: arguments)
        let predicate = generator.variables.isEmpty ? template : try template.withSubstitutionVariables(generator.variables)
        let sortKeys = (0..<Int.random(in: 0...2, using: &rng)).map { _ in
            SortKey(rng.pick(SortKeyDifferentialTests.paths), ascending: rng.chance(0.5), comparison: rng.pick(SortKey.Comparison.allCases))
        }
        var request = FetchRequest<ManagedObject>(entityName: "Item", predicate: predicate, sortKeys: sortKeys)
        if rng.chance(0.3) { request.fetchLimit = Int.random(in: 1...12, using: &rng) }
        if rng.chance(0.2) { request.fetchOffset = Int.random(in: 1...8, using: &rng) }
        if rng.chance(0.2) { request.fetchBatchSize = Int.random(in: 1...7, using: &rng) }
        if rng.chance(0.2) { request.returnsObjectsAsFaults = true }
        let describe = "\(label): \(format) \(arguments)\n  parsed: \(predicate)\n  sort: \(sortKeys) limit \(request.fetchLimit) offset \(request.fetchOffset) batch \(request.fetchBatchSize) faults \(request.returnsObjectsAsFaults)"

        // The engine first (the oracle fires faults, which would hide fault-path bugs).
        let fetched = try context.fetch(request).map(\.objectID)
        let fetchedIDs = try context.fetchObjectIDs(request)
        let counted = try context.count(for: request)

        // The oracle: every live Item, filtered and sorted in memory, then windowed.
        let compiled = try predicate.compiled(for: item, in: model)
        let order = try sortKeys.map { try $0.compiled(for: item, in: model) }
        var live = (ids["Item"] ?? []).map(context.object(with:)).filter { !$0.isDeleted }
        live += context.insertedObjects.filter { $0.entity === item }
        let matching = live.filter { compiled.evaluate($0) }.sorted { CompiledSortKey.areInIncreasingOrder(order, $0, $1) }
        let expected = Array(matching.dropFirst(request.fetchOffset).prefix(request.fetchLimit > 0 ? request.fetchLimit : Int.max)).map(\.objectID)

        var problems: [String] = []
        if fetched != expected {
            let only = Set(fetched).subtracting(expected), missing = Set(expected).subtracting(fetched)
            problems.append("fetch: \(fetched.count) objects, expected \(expected.count); fetched only \(only.sorted(by: Self.byKey)); missing \(missing.sorted(by: Self.byKey))\(only.isEmpty && missing.isEmpty ? "; order differs:\n    got      \(fetched)\n    expected \(expected)" : "")")
        }
        if fetchedIDs != expected { problems.append("fetchObjectIDs: \(fetchedIDs.count) IDs, expected \(expected.count) (equal as sets: \(Set(fetchedIDs) == Set(expected)))") }
        if counted != expected.count { problems.append("count(for:): \(counted), expected \(expected.count)") }
        let selective = !matching.isEmpty && matching.count < live.count
        return (problems.isEmpty ? nil : describe + "\n  " + problems.joined(separator: "\n  "), selective)
    }

    static func byKey(_ a: ObjectID, _ b: ObjectID) -> Bool { FetchEvaluator.compareIDs(a, b) < 0 }
}

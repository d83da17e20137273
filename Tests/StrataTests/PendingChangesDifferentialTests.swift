import Foundation
import Testing
@testable import Strata

/// A fetch in a context with unsaved inserts, updates and deletes must return exactly the
/// objects, in exactly the order, that the in-memory evaluator picks among the context's live
/// objects (registered or not, not deleted, inserted ones included). Random predicates and sort
/// keys, random windows, seeded random pending changes over the differential fixtures.
///
/// `STRATA_SEED` replays one seed; `STRATA_LONG=1` runs 40 seeds; `STRATA_ITERATIONS` sets the
/// number of requests per round of changes.
@Suite struct PendingChangesDifferentialTests {
    static let seeds = SeededRandom.seeds(ProcessInfo.processInfo.environment["STRATA_LONG"] == "1" ? Array(1...40) : [5, 77, 2026])

    @Test(arguments: seeds) func fetchAgreesWithLiveObjects(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let model = try PredicateTestModel.make()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(directory.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let requests = iterationCount(50)
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
        let requests = iterationCount(40)
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
        let predicate = try ObjectPredicate(format: format, arguments: arguments)
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

import Foundation
import Strata
import StrataRandom

/// The crash harness's writer: opens the store with ``CrashModel`` version `version` (which
/// migrates it when it is older), then saves forever, one step per transaction, choosing each
/// step from `seed`: inserts with relationships, to-one and to-many edits (from either side),
/// value updates, deletes under cascade and nullify rules, and batch insert, update and delete
/// requests. It keeps the graph it expects in a ``CrashState``, and for step `n` says
/// `pending <n> <kind> <digest>` before the transaction (the digest of the graph once it commits)
/// and `ack <n>` after. Every fifth step it reads the store back and exits 1 if it differs.
struct MixedRole {
    let coordinator: StoreCoordinator
    let seed: UInt64
    let firstStep: Int

    enum Step: CaseIterable {
        case insertOwner, moveItem, retag, updateValues, deleteItem, deleteOwner, deleteTag, batchInsert, batchUpdate, batchDelete

        /// The kind of history transaction the step writes.
        var kind: String {
            switch self {
            case .batchInsert: "batchInsert"
            case .batchUpdate: "batchUpdate"
            case .batchDelete: "batchDelete"
            default: "save"
            }
        }
    }

    func run() async {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "mixed")
        let seed = self.seed, firstStep = self.firstStep
        do {
            try await context.perform {
                var random = SplitMix64(seed: seed &+ UInt64(firstStep))
                var expected = try CrashState.read(context)
                for n in firstStep... {
                    let step = Self.choose(expected, &random)
                    try Self.apply(step, n: n, context: context, expected: &expected, random: &random)
                    if n % 5 == 0 {
                        context.reset()
                        let stored = try CrashState.read(context)
                        if stored != expected {
                            fail("step \(n) (\(step)): the store differs from what was saved.\nexpected:\n\(expected.canonicalText)\nstored:\n\(stored.canonicalText)", status: 1)
                        }
                    }
                }
            }
        } catch {
            fail("mixed: \(error)", status: 2)
        }
    }

    /// A step that applies to `state`, keeping the graph between a few and ~150 items.
    static func choose(_ state: CrashState, _ random: inout SplitMix64) -> Step {
        if state.items.isEmpty || state.owners.isEmpty { return Bool.random(using: &random) ? .insertOwner : .batchInsert }
        var weighted: [(Step, Int)] = [(.moveItem, 2), (.retag, 2), (.updateValues, 2), (.deleteItem, 1), (.batchDelete, 1)]
        if state.items.values.contains(where: { $0.value < 100 }) { weighted += [(.batchUpdate, 1)] }
        if state.items.count < 150 { weighted += [(.insertOwner, 4), (.batchInsert, 1)] }
        if state.items.count > 30 { weighted += [(.deleteOwner, 2)] }
        if state.tags.count > 3 { weighted += [(.deleteTag, 1)] }
        var pick = Int.random(in: 0..<weighted.map(\.1).reduce(0, +), using: &random)
        for (step, weight) in weighted {
            if pick < weight { return step }
            pick -= weight
        }
        return .updateValues
    }

    /// Makes step `n` in `context` and in `expected`, says "pending", commits, says "ack".
    static func apply(_ step: Step, n: Int, context: ObjectContext, expected: inout CrashState, random: inout SplitMix64) throws {
        func one(_ entity: String, _ key: String, _ name: String) throws -> ManagedObject {
            guard let object = try context.fetch(FetchRequest<ManagedObject>(entityName: entity, predicate: try ObjectPredicate("\(key) == %@", name))).first else {
                throw StrataError(.objectNotFound, "\(entity) \(name) is not in the store")
            }
            return object
        }
        func anyItem() -> String { expected.items.keys.sorted().randomElement(using: &random)! }
        func anyOwner() -> String { expected.owners.sorted().randomElement(using: &random)! }
        func anyTag() -> String? { expected.tags.sorted().randomElement(using: &random) }

        switch step {
        case .insertOwner:
            let owner = try context.insert(entityNamed: "Owner")
            try owner.setValue("o\(n)", forKey: "name")
            expected.owners.insert("o\(n)")
            var tagObjects: [String: ManagedObject] = [:]
            if expected.tags.isEmpty || random.next() % 2 == 0 {
                let tag = try context.insert(entityNamed: "Tag")
                try tag.setValue("t\(n)", forKey: "label")
                tagObjects["t\(n)"] = tag
                expected.tags.insert("t\(n)")
            }
            for j in 0..<Int.random(in: 1...4, using: &random) {
                let item = try context.insert(entityNamed: "Item")
                let value = Int64.random(in: 0..<100, using: &random)
                try item.setValue("i\(n)-\(j)", forKey: "name")
                try item.setValue(value, forKey: "value")
                try item.setValue(owner, forKey: "owner")
                var labels: Set<String> = []
                for _ in 0..<Int.random(in: 0...2, using: &random) { if let label = anyTag() { labels.insert(label) } }
                var tags: Set<ManagedObject> = []
                for label in labels {
                    if tagObjects[label] == nil { tagObjects[label] = try one("Tag", "label", label) }
                    tags.insert(tagObjects[label]!)
                }
                try item.setValue(tags, forKey: "tags")
                expected.items["i\(n)-\(j)"] = .init(value: value, owner: "o\(n)", tags: labels)
            }
        case .moveItem:
            let name = anyItem()
            let item = try one("Item", "name", name)
            // Always a real change (every step writes one history transaction): another owner, or none.
            let current = expected.items[name]?.owner
            let others = expected.owners.subtracting([current].compactMap { $0 }).sorted()
            let target: String? = others.isEmpty || (current != nil && random.next() % 5 == 0) ? nil : others.randomElement(using: &random)
            if let target, random.next() % 2 == 0 {
                // From the to-many side: the inverse to-one follows.
                let owner = try one("Owner", "name", target)
                var items = owner.value(forKey: "items") as? Set<ManagedObject> ?? []
                items.insert(item)
                try owner.setValue(items, forKey: "items")
            } else {
                try item.setValue(try target.map { try one("Owner", "name", $0) }, forKey: "owner")
            }
            expected.items[name]?.owner = target
        case .retag:
            let name = anyItem()
            let item = try one("Item", "name", name)
            var labels = expected.items[name]?.tags ?? []
            if let removed = labels.sorted().randomElement(using: &random) {
                let tag = try one("Tag", "label", removed)
                var items = tag.value(forKey: "items") as? Set<ManagedObject> ?? []
                items.remove(item)
                try tag.setValue(items, forKey: "items")
                labels.remove(removed)
            }
            // Always a real change: a tag the item does not have (a new one when it has them all).
            if let added = expected.tags.subtracting(labels).subtracting(expected.items[name]?.tags ?? []).sorted().randomElement(using: &random) {
                let tag = try one("Tag", "label", added)
                var tags = item.value(forKey: "tags") as? Set<ManagedObject> ?? []
                tags.insert(tag)
                try item.setValue(tags, forKey: "tags")
                labels.insert(added)
            } else {
                let tag = try context.insert(entityNamed: "Tag")
                try tag.setValue("t\(n)", forKey: "label")
                try tag.setValue(Set([item]), forKey: "items")
                expected.tags.insert("t\(n)")
                labels.insert("t\(n)")
            }
            expected.items[name]?.tags = labels
        case .updateValues:
            for name in expected.items.keys.sorted().shuffled(using: &random).prefix(Int.random(in: 1...5, using: &random)) {
                var value: Int64
                repeat { value = Int64.random(in: 0..<100, using: &random) } while value == expected.items[name]?.value
                try one("Item", "name", name).setValue(value, forKey: "value")
                expected.items[name]?.value = value
            }
        case .deleteItem:
            let name = anyItem()
            context.delete(try one("Item", "name", name))
            expected.items[name] = nil
        case .deleteOwner:
            let name = anyOwner()
            context.delete(try one("Owner", "name", name))  // cascade: its items go too
            expected.owners.remove(name)
            expected.items = expected.items.filter { $0.value.owner != name }
        case .deleteTag:
            guard let label = anyTag() else { break }
            context.delete(try one("Tag", "label", label))  // nullify: the items stay, untagged
            expected.tags.remove(label)
            for name in expected.items.keys { expected.items[name]?.tags.remove(label) }
        case .batchInsert, .batchUpdate, .batchDelete:
            try batch(step, n: n, context: context, expected: &expected, random: &random)
            return
        }
        emit("pending \(n) \(step.kind) \(expected.digest)")
        context.transactionAuthor = "step-\(n)"
        try context.save()
        emit("ack \(n)")
    }

    /// A batch request: one transaction of its own, straight to the store.
    static func batch(_ step: Step, n: Int, context: ObjectContext, expected: inout CrashState, random: inout SplitMix64) throws {
        let coordinator = context.coordinator
        switch step {
        case .batchInsert:
            let ownerName: String? = expected.owners.isEmpty || random.next() % 4 == 0 ? nil : expected.owners.sorted().randomElement(using: &random)
            var owner = PropertyValue.null
            if let ownerName {
                let request = FetchRequest<ManagedObject>(entityName: "Owner", predicate: try ObjectPredicate("name == %@", ownerName))
                guard let id = try context.fetchObjectIDs(request).first else { throw StrataError(.objectNotFound, "Owner \(ownerName)") }
                owner = .objectID(id)
            }
            var rows: [[String: PropertyValue]] = []
            for j in 0..<Int.random(in: 2...6, using: &random) {
                let value = Int64.random(in: 0..<100, using: &random)
                rows.append(["name": .string("b\(n)-\(j)"), "value": .integer(value), "owner": owner])
                expected.items["b\(n)-\(j)"] = .init(value: value, owner: ownerName, tags: [])
            }
            emit("pending \(n) \(step.kind) \(expected.digest)")
            _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: rows))
        case .batchUpdate:
            // At least one row matches (below 100, where every other step's values are), and its value changes.
            let threshold = min(100, (expected.items.values.map(\.value).filter { $0 < 100 }.min() ?? 0) + Int64.random(in: 1...30, using: &random))
            let value = Int64(100 + n % 97)
            for (name, item) in expected.items where item.value < threshold { expected.items[name]?.value = value }
            emit("pending \(n) \(step.kind) \(expected.digest)")
            _ = try coordinator.execute(BatchUpdateRequest(entityName: "Item", predicate: try ObjectPredicate("value < %d", threshold),
                                                           propertiesToUpdate: ["value": .integer(value)]))
        default:
            let value = expected.items.values.map(\.value).sorted().randomElement(using: &random) ?? 0
            expected.items = expected.items.filter { $0.value.value != value }
            emit("pending \(n) \(step.kind) \(expected.digest)")
            _ = try coordinator.execute(BatchDeleteRequest(entityName: "Item", predicate: try ObjectPredicate("value == %d", value)))
        }
        context.reset()  // the batch went around the context
        emit("ack \(n)")
    }
}

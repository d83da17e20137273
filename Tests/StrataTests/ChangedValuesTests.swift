import Dispatch
import Foundation
import Testing
@testable import Strata

/// The changed-values dictionaries of a save's report: made from a template per shape
/// (`ChangedValuesMaker`) and, for a large main-queue save, on a second core
/// (`ChangedValuesInParallel`); either way the same as each change's own `changedValues`.
@Suite struct ChangedValuesTests {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(entities: [
                EntityDescription("Item", attributes: [
                    AttributeDescription("a", type: .int64), AttributeDescription("b", type: .string), AttributeDescription("c", type: .int64),
                ]),
                EntityDescription("Other", attributes: [AttributeDescription("a", type: .string), AttributeDescription("z", type: .int64)]),
            ])
        } catch { preconditionFailure("\(error)") }   // programmer error: the test model is valid
    }()

    /// Changes in runs of several shapes (one key, two keys, another entity, every key), each
    /// with its own values.
    static func changes(_ count: Int) -> [ObjectChange] {
        let item = model.entities[0], other = model.entities[1]
        return (0..<count).map { i in
            let shape = (i / 7) % 4   // runs of seven of a shape
            var mask = PropertyMask()
            switch shape {
            case 0: mask.insert(1)
            case 1: mask.insert(0); mask.insert(2)
            case 2: mask.insert(1)
            default: mask = .all(3)
            }
            if shape == 2 {
                return ObjectChange(id: ObjectID(entity: other, primaryKey: Int64(i)), version: 1, values: [.string("o\(i)"), .integer(Int64(-i))],
                                    originalValues: [.null, .null], changedAttributes: mask, relations: [])
            }
            return ObjectChange(id: ObjectID(entity: item, primaryKey: Int64(i)), version: 1, values: [.integer(Int64(i)), .string("text \(i) long enough to live on the heap"), .integer(Int64(2 * i))],
                                originalValues: [.null, .null, .null], changedAttributes: mask, relations: [])
        }
    }

    @Test func theTemplateGivesEachChangeItsOwnValues() {
        let changes = Self.changes(200)
        var maker = ChangedValuesMaker()
        let made = changes.map { maker.values(of: $0) }
        #expect(made == changes.map(\.changedValues))
        var more = made[0]   // a made dictionary stays an ordinary one
        more["extra"] = .integer(1)
        #expect(more.count == made[0].count + 1 && made[0]["extra"] == nil)
    }

    /// On the main queue, from the threshold on, every change's dictionary comes back in order.
    @Test func aLargeMainQueueSavesValuesAreMadeInParallelInOrder() {
        let changes = Self.changes(ChangedValuesInParallel.threshold + ChangedValuesInParallel.chunkSize + 3)
        let made = Locked<[[String: PropertyValue]]?>(nil)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            let work = ChangedValuesInParallel.start(for: changes)
            made.withLock { $0 = work?.finish() }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(made.withLock { $0 } == changes.map(\.changedValues))
    }

    @Test func smallOrOffMainSavesMakeTheirValuesAsTheyGo() {
        #expect(ChangedValuesInParallel.start(for: Self.changes(ChangedValuesInParallel.threshold)) == nil)   // not on main
        let small = Locked(true)
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.main.async {
            small.withLock { $0 = ChangedValuesInParallel.start(for: Self.changes(ChangedValuesInParallel.threshold - 1)) == nil }
            done.signal()
        }
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(small.withLock { $0 })
    }

    /// A main-queue context's large save reports every update's own values.
    @Test func aLargeMainQueueSaveReportsEachUpdatesValues() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: sampleModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        let count = ChangedValuesInParallel.threshold + 300
        try await main.perform {
            for i in 0..<count {
                let sample = main.insert(Sample.self)
                sample.name = "s\(i)"
            }
            try main.save()
        }
        let heard = Locked<[ChangeSet]>([])
        let token = main.observeChanges { changes in heard.withLock { $0.append(changes) } }
        let expected: [ObjectID: [String: PropertyValue]] = try await main.perform {
            var expected: [ObjectID: [String: PropertyValue]] = [:]
            for sample in try main.fetch(FetchRequest<Sample>()) {
                let i = Int(sample.name.dropFirst()) ?? -1
                if i % 3 == 0 { sample.text = "t\(i)"; expected[sample.objectID] = ["text": .string("t\(i)")] }
                else if i % 3 == 1 { sample.large = Int64(i); sample.text = "u\(i)"; expected[sample.objectID] = ["large": .integer(Int64(i)), "text": .string("u\(i)")] }
                else { sample.flag = true; expected[sample.objectID] = ["flag": .bool(true)] }
            }
            try main.save()
            return expected
        }
        withExtendedLifetime(token) {}
        let saved = heard.withLock { $0 }.last { !$0.isUnsaved }
        #expect(saved?.updated == expected)
        try coordinator.close()
    }
}

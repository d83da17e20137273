import Foundation
import Strata
import Testing
@testable import StrataSync

/// Kill-at-every-step for attach and sync, in process: the cloud fails call k of the
/// operation (every k up to the calls it makes without a fault), before its effect or after
/// it (the reply lost); the app is then "relaunched" (the `Ensemble` object dropped and a new
/// one opened over the same store and state); with the faults gone, two sync rounds must
/// leave both stores equal to each other and to the oracle, nothing duplicated, nothing lost.
@Suite struct SyncCrashTests {
    enum Killed: String, CaseIterable, Sendable { case attach, sync }

    struct Case: Sendable, CustomTestStringConvertible {
        var killed: Killed
        var afterEffect: Bool
        var testDescription: String { "\(killed.rawValue)\(afterEffect ? ", failing after the effect" : "")" }
        static let all = Killed.allCases.flatMap { k in [false, true].map { Case(killed: k, afterEffect: $0) } }
    }

    @Test(arguments: Case.all)
    func killedAtEveryCloudCallConverges(_ c: Case) async throws {
        // Some failures are tolerated by design (a cleanup that removes old files tries again
        // next time), so every call is failed in turn, not only those up to the first tolerated one.
        let calls = try await run(c, failing: nil).calls
        #expect((5...80).contains(calls), "\(c.testDescription): the operation made \(calls) cloud calls")
        var failures = 0
        for k in 1...max(1, min(calls, 80)) where try await run(c, failing: k).threw { failures += 1 }
        #expect(failures >= 4, "\(c.testDescription): only \(failures) of \(calls) failed calls failed the operation")
    }

    /// One kill at call `k` of the operation (none when nil); returns whether the operation
    /// threw and how many cloud calls it made.
    func run(_ c: Case, failing k: Int?) async throws -> (threw: Bool, calls: Int) {
        let label = "\(c.testDescription), call \(k.map(String.init) ?? "none")"
        let model = try SyncTestModel.make()
        let memory = MemoryCloudFileSystem()
        let cloud = RecordingCloud(memory)
        var options = EnsembleOptions()
        options.baselineEventThreshold = 2   // the sync also writes a baseline and cleans up
        let a = try await SyncDevice(0, cloud: cloud, model: model, options: options)
        let b = try await SyncDevice(1, cloud: cloud, model: model, options: options)
        try await edit(a) { context in
            let author = try context.make("Author", ["uniqueIdentifier": "shared", "name": "from a"])
            let book = try context.make("Book", ["title": "a-book", "rating": 1])
            try book.setValue(author, forKey: "author")
            try book.setValue(Set([try context.make("Tag", ["name": "a-tag"])]), forKey: "tags")
        }
        try await a.ensemble.attach()
        try await a.ensemble.sync()
        try await edit(b) { context in
            let author = try context.make("Author", ["uniqueIdentifier": "shared", "name": "from b"])
            try context.make("Book", ["title": "b-book", "rating": 2]).setValue(author, forKey: "author")
        }
        if c.killed == .sync {
            try await b.ensemble.attach()
            try await b.ensemble.sync()
            try await edit(a) { context in
                try context.first("Book", "title", .string("a-book"))!.setValue(7, forKey: "rating")
                try context.make("Book", ["title": "a-book-2"])
            }
            try await a.ensemble.sync()
            try await a.ensemble.sync()
            try await edit(b) { context in
                try context.first("Book", "title", .string("b-book"))!.setValue(8, forKey: "rating")
                try context.make("Tag", ["name": "b-tag"])
            }
        }
        let base = await memory.operationCounts.values.reduce(0, +)
        if let k {
            var plan = FaultPlan(seed: UInt64(k))
            plan.failingCalls = [base + k]
            plan.failuresAfterEffect = c.afterEffect
            await memory.setFaults(plan)
        }
        var threw = false
        do {
            if c.killed == .attach { try await b.ensemble.attach() } else { try await b.ensemble.sync() }
        } catch {
            threw = true
            #expect(error.code == .backendFailure, "\(label): \(error)")
        }
        let calls = await memory.operationCounts.values.reduce(0, +) - base
        await memory.setFaults(.none)
        try await b.relaunch()
        if !(await b.ensemble.isAttached) { try await b.ensemble.attach() }
        for _ in 0..<2 {
            try await a.ensemble.sync()
            try await b.ensemble.sync()
        }
        let dumpA = try await a.ensemble.canonicalDump(), dumpB = try await b.ensemble.canonicalDump()
        #expect(dumpA == dumpB, "\(label): the peers differ at \(firstDifference(dumpA, dumpB))")
        let oracle = SyncOracle(files: cloud.files).dump(model: model)
        #expect(dumpA == oracle, "\(label): the store differs from the oracle at \(firstDifference(dumpA, oracle))")
        let expectedBooks = c.killed == .sync ? 3 : 2
        for device in [a, b] {
            let context = device.context
            let counts = try await context.perform {
                try ["Author", "Book", "Tag"].map { try context.count(for: FetchRequest<ManagedObject>(entityName: $0)) }
            }
            #expect(counts == [1, expectedBooks, c.killed == .sync ? 2 : 1], "\(label): device \(device.index) holds \(counts) authors, books, tags")
        }
        if c.killed == .sync {
            let context = a.context
            let ratings = try await context.perform {
                try context.fetch(FetchRequest<ManagedObject>(entityName: "Book")).map { "\($0.primitiveValue(forKey: "title"))=\($0.primitiveValue(forKey: "rating"))" }.sorted()
            }
            #expect(ratings.contains("\(PropertyValue.string("b-book"))=\(PropertyValue.integer(8))"), "\(label): b's edit was lost: \(ratings)")
            #expect(ratings.contains("\(PropertyValue.string("a-book"))=\(PropertyValue.integer(7))"), "\(label): a's edit was lost: \(ratings)")
        }
        return (threw, calls)
    }

    func edit(_ device: SyncDevice, _ body: @escaping @Sendable (ObjectContext) throws -> Void) async throws {
        let context = device.context
        try await context.perform {
            try body(context)
            try context.save()
        }
    }
}

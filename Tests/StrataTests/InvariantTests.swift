import Foundation
import Testing
@testable import Strata

/// `checkInvariants()` on its own: it must catch a broken graph, pass on a graph that only
/// its own context changes, and it pins down a suspected engine bug found by the stress test.
@Suite struct InvariantTests {
    @Test func theCheckerCatchesABrokenInverse() async throws {
        let directory = TemporaryDirectory()
        let (_, context) = try await makeStore(directory)
        let caught: ContextInvariantViolation? = try await context.perform {
            let folder = context.insert(Folder.self)
            let note = context.insert(Note.self)
            note.folder = folder
            try context.checkInvariants()
            guard let slot = note.entity.relationships.firstIndex(where: { $0.name == "folder" }) else { return nil }
            note.relationValues[slot] = .toOne(nil)   // break one side behind the setters' back
            do { try context.checkInvariants() } catch let violation as ContextInvariantViolation { return violation }
            return nil
        }
        #expect(caught?.problems.map(\.kind) == [.inverseMismatch])
    }

    /// One context alone, seeded random edits and saves: every invariant, inverses included,
    /// holds after every step.
    @Test(arguments: SeededRandom.seeds([11, 12]))
    func aContextAloneKeepsEveryInvariant(seed: UInt64) async throws {
        let directory = TemporaryDirectory()
        let (_, context) = try await makeStore(directory)
        let worker = StressWorker(context)
        let ledger = SaveLedger()
        let failure: String? = try await context.perform {
            var random = SeededRandom(seed: seed)
            for number in 0..<iterationCount("STRATA_STRESS_STEPS", default: 250) {
                let operation = try worker.step(&random, number: number, ledger: ledger)
                do { try context.checkInvariants() } catch { return "seed \(seed), step \(number) (\(operation)): \(error)" }
            }
            return nil
        }
        #expect(failure == nil, "\(failure ?? "")")
        let totals = ledger.state.withLock { $0 }
        #expect(totals.saves > 0 && totals.conflicts == 0 && totals.otherErrors.isEmpty, "seed \(seed): \(totals.otherErrors)")
    }

    // Timeline (a and b: root contexts on one coordinator; note N has no tags, tag T exists):
    //   1. a loads N.tags (empty)
    //   2. b adds T to N.tags and saves
    //   3. a deletes N: nullify walks a's N.tags, still empty, so T is not touched
    //   4. a reads T.notes: loaded from the store, it lists N (deleted in a, not yet saved)
    //   5. a saves (object-trump: N's version moved): N leaves a's registry, but T.notes keeps the detached N
    @Test func aToManyLoadedAfterADeleteKeepsTheDeletedObject() async throws {
        let directory = TemporaryDirectory()
        let (coordinator, seeder) = try await makeStore(directory)
        let (noteID, tagID) = try await seeder.perform {
            let note = seeder.insert(Note.self), tag = seeder.insert(Tag.self)
            try seeder.save()
            return (note.objectID, tag.objectID)
        }
        let a = ObjectContext(.privateQueue, coordinator: coordinator, name: "a")
        let b = ObjectContext(.privateQueue, coordinator: coordinator, name: "b")
        try await a.perform {                                                                                      // 1.
            let note = try a.existingObject(with: noteID) as? Note
            #expect(note?.tags.isEmpty == true)
        }
        try await b.perform {                                                                                      // 2.
            guard let note = try b.existingObject(with: noteID) as? Note, let tag = try b.existingObject(with: tagID) as? Tag else { return }
            note.tags.insert(tag)
            try b.save()
        }
        // Expectations run in the test's task, not inside `perform` (whose body runs on the
        // context's queue, outside the test's task-local context).
        let (keepsDeleted, problems) = try await a.perform {
            a.mergePolicy = .mergeByPropertyObjectTrump   // b's save bumped N's version; delete it anyway
            a.delete(a.object(with: noteID))                                                                      // 3.
            let tag = try #require(try a.existingObject(with: tagID) as? Tag)
            _ = tag.notes                                                                                          // 4.
            try a.save()                                                                                           // 5.
            var problems: [String] = []
            do { try a.checkInvariants() } catch { problems.append("\(error)") }
            return (tag.notes.contains { $0.objectID == noteID }, problems)
        }
        #expect(!keepsDeleted)
        #expect(problems.isEmpty, "\(problems)")
    }
}

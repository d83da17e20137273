import Dispatch
import Foundation
import Strata
import StrataStacks
import Testing

/// How the hybrid stack brings a burst of import saves into main: saves that arrive while main
/// is still busy with an earlier delivery wait and are merged into it together.
@Suite struct HybridDeliveryTests {
    @Test func savesArrivingWhileMainIsBusyAreMergedTogetherAndLoseNothing() async throws {
        let file = StoreFile()
        let stack = try #require(try await Stacks.open(.hybrid, model: stackModel, storeURL: file.url) as? HybridStack)
        let main = stack.mainContext
        let importer = stack.newImportContext()
        let heldID = try await importer.perform { () throws -> ObjectID in
            let item = importer.insert(Item.self); item.uid = "held"; item.title = "v0"
            try importer.save()
            return item.objectID
        }
        // Main holds the item, so every later update of it must reach main's object.
        try await main.perform { _ = try main.existingObject(with: heldID) }
        let seen = Locked<Set<ObjectID>>([])
        let token = main.observeChanges { changes in seen.withLock { $0.formUnion(changes.inserted) } }
        let mergesBefore = try await waitForMerges(of: stack, atLeast: 1)

        // Main stays busy while 30 one-object saves arrive. The saves run on a thread of their
        // own, never on the cooperative pool: other tests of the run may hold its threads
        // waiting for the main queue, which this test holds until the saves are done. The
        // wait has a limit, so a failure here cannot hang the whole run.
        let release = DispatchSemaphore(value: 0)
        DispatchQueue.main.async { _ = release.wait(timeout: .now() + 60) }
        let saved = Locked<Result<[ObjectID], any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            defer { release.signal(); done.signal() }
            saved.withLock { $0 = Result { () throws -> [ObjectID] in
                try (1...30).map { i in
                    try importer.performAndWait { () throws -> ObjectID in
                        let held = try importer.existingObject(with: heldID) as! Item   // programmer error: saved above
                        held.title = "v\(i)"
                        let item = importer.insert(Item.self); item.uid = "i\(i)"; item.title = "new"
                        try importer.save()
                        return item.objectID
                    }
                }
            } }
        }.start()
        await withCheckedContinuation { continuation in
            Thread { done.wait(); continuation.resume() }.start()
        }
        let inserted = try #require(saved.withLock { $0 }).get()

        var title = ""
        for _ in 0..<500 where title != "v30" || seen.withLock({ !$0.isSuperset(of: inserted) }) {
            try await Task.sleep(for: .milliseconds(10))
            title = try await main.perform { (try main.existingObject(with: heldID) as! Item).title }   // programmer error: held
        }
        #expect(title == "v30")
        #expect(seen.withLock { $0.isSuperset(of: inserted) })
        // At most the delivery main was busy with, then the rest together (a save or two may
        // slip in before main's turn was taken): far fewer than the 30 saves.
        let merges = stack.mergesIntoMain - mergesBefore
        #expect((1...4).contains(merges), "\(merges) merges for 30 saves")
        token.cancel()
    }

    /// The stack's merge count once it reached `count` (polls; the first delivery is asynchronous).
    private func waitForMerges(of stack: HybridStack, atLeast count: Int) async throws -> Int {
        for _ in 0..<500 where stack.mergesIntoMain < count { try await Task.sleep(for: .milliseconds(10)) }
        return stack.mergesIntoMain
    }
}

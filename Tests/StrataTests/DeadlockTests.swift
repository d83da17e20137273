import Dispatch
import Foundation
import Testing
@testable import Strata

/// Scripted interleavings of the main queue and background contexts that must never
/// deadlock. Every wait is bounded by a ``Watchdog`` (5 s); a timeout fails the test and
/// stops the script. No sleeps: each step is released by a numbered semaphore.
///
/// Iterations: 10,000 per test by default, `STRATA_DEADLOCK_ITERATIONS` to change.
@Suite struct DeadlockTests {
    /// The last change set a context published (set on that context's queue).
    final class LastChanges: Sendable {
        let value = Locked<ChangeSet?>(nil)
    }

    /// A store with `count` notes, the ID of the first one, and the coordinator.
    private func seed(_ directory: TemporaryDirectory, notes count: Int) async throws -> (StoreCoordinator, ObjectID) {
        let (coordinator, seeder) = try await makeStore(directory)
        let id = try await seeder.perform {
            var first: Note?
            for i in 0..<count {
                let note = seeder.insert(Note.self)
                note.title = "seed \(i)"
                if first == nil { first = note }
                try seeder.save()
            }
            guard let first else { throw StrataError(.invalidRequest, "no notes") }
            return first.objectID
        }
        return (coordinator, id)
    }

    // Timeline of one iteration (main = .mainQueue root, background = .privateQueue root,
    // same coordinator; "main queue" is DispatchQueue.main, serviced by a worker thread):
    //
    //   main queue (block M_i)                     writer thread (block B_i)
    //   ──────────────────────                     ─────────────────────────
    //   1. main.performAndWait { fetch }  (inline)
    //      signal s1 ─────────────────────────►    2. wait s1
    //   3. main.performAndWait { fetch }              background.performAndWait {
    //      (reads the store while the                    note.title = "i"; save()
    //       writer may be writing)                  4.   signal s2
    //   5. wait s2 ◄────────────────────────────         main.performAndWait {   ← blocks: main queue busy
    //      main.performAndWait { count title==i }          main.merge(changes)
    //   6. M_i returns: main queue free ────────►    7.    main's note.title == "i"
    //      signal mainDone                                }
    //                                                   }
    //                                                8. signal writerDone
    //   driver: wait mainDone, wait writerDone (each ≤ 5 s, else "deadlock")
    @Test func mainQueueFetchesWhileBackgroundSavesMergeSynchronouslyIntoMain() async throws {
        let directory = TemporaryDirectory()
        let (coordinator, noteID) = try await seed(directory, notes: 20)
        let main = ObjectContext(.mainQueue, coordinator: coordinator, name: "main")
        let background = ObjectContext(.privateQueue, coordinator: coordinator, name: "background")
        let last = LastChanges()
        let token = background.observeChanges { changes in last.value.withLock { $0 = changes } }
        defer { token.cancel() }
        let iterations = iterationCount("STRATA_DEADLOCK_ITERATIONS", default: 10_000)
        let watchdog = Watchdog()
        let writer = DispatchQueue(label: "deadlock.writer")
        let started = ContinuousClock.now

        await Watchdog.runBlocking {
            for i in 0..<iterations where !watchdog.hasFailed {
                let s1 = DispatchSemaphore(value: 0), s2 = DispatchSemaphore(value: 0)
                let mainDone = DispatchSemaphore(value: 0), writerDone = DispatchSemaphore(value: 0)
                let title = "iteration \(i)"
                DispatchQueue.main.async {
                    defer { mainDone.signal() }
                    do {
                        // 1.
                        let count = try main.performAndWait { try main.fetch(FetchRequest<Note>()).count }
                        watchdog.check(count == 20, "[\(i)] step 1: main fetched \(count) notes, not 20")
                        s1.signal()
                        // 3.
                        _ = try main.performAndWait { try main.fetch(FetchRequest<Note>()).map(\.title) }
                        // 5.
                        guard watchdog.wait(s2, "[\(i)] step 5: the writer's save") else { return }
                        let saved = try main.performAndWait { try main.count(for: FetchRequest<Note>(predicate: .key("title") == title)) }
                        watchdog.check(saved == 1, "[\(i)] step 5: the store holds \(saved) notes titled \(title), not 1")
                    } catch {
                        watchdog.fail("[\(i)] main: \(error)")
                    }
                }   // 6.
                writer.async {
                    defer { writerDone.signal() }
                    // 2.
                    guard watchdog.wait(s1, "[\(i)] step 2: main's first fetch") else { return }
                    do {
                        try background.performAndWait {
                            guard let note = background.object(with: noteID) as? Note else { return watchdog.fail("[\(i)] not a note") }
                            note.title = title
                            try background.save()
                            s2.signal()  // 4.
                            guard let changes = last.value.withLock({ $0 }) else { return watchdog.fail("[\(i)] no change set") }
                            main.performAndWait {
                                main.merge(changes)
                                // 7.
                                let merged = (main.object(with: noteID) as? Note)?.title
                                watchdog.check(merged == title, "[\(i)] step 7: main's note reads \(merged ?? "nil") after the merge, not \(title)")
                            }
                        }
                    } catch {
                        watchdog.fail("[\(i)] writer: \(error)")
                        s2.signal()
                    }
                }   // 8.
                _ = watchdog.wait(mainDone, "[\(i)] the main-queue block")
                _ = watchdog.wait(writerDone, "[\(i)] the writer block")
            }
        }

        let elapsed = ContinuousClock.now - started
        print("DeadlockTests.mainQueue…: \(iterations) iterations in \(elapsed)")
        #expect(watchdog.failures.isEmpty, "\(watchdog.failures.prefix(5).joined(separator: "\n"))")
        let final = try await main.perform { (main.object(with: noteID) as? Note)?.title }
        #expect(final == "iteration \(iterations - 1)")
    }

    // Timeline of one iteration (main = .mainQueue root; child = .privateQueue child of
    // main, merging main's saves automatically; a child fetch runs synchronously on main's
    // queue):
    //
    //   main queue (block M_i)                     reader thread (block C_i)
    //   ──────────────────────                     ─────────────────────────
    //   1. main.performAndWait { note.title = "i" }
    //      signal s1 ─────────────────────────►    2. wait s1
    //   3. main.save()  (writes; publishes to         child.performAndWait {
    //      the child asynchronously)                     fetch notes  → main's queue: waits for M_i
    //   4. M_i returns: main queue free ────────►    5.  count title == "i" (via main) == 1
    //      signal mainDone                              }
    //                                               6. signal readerDone
    //   driver: wait mainDone, readerDone (≤ 5 s each), then
    //   7. child.performAndWait { child's note.title == "i" }  (the auto-merge was queued in 3.)
    @Test func childFetchesThroughMainWhileMainSaves() async throws {
        let directory = TemporaryDirectory()
        let (coordinator, noteID) = try await seed(directory, notes: 20)
        let main = ObjectContext(.mainQueue, coordinator: coordinator, name: "main")
        let child = ObjectContext(.privateQueue, parent: main, name: "child")
        try child.performAndWait {
            child.automaticallyMergesChangesFromParent = true
            _ = try child.fetch(FetchRequest<Note>()).map(\.title)
        }
        let iterations = iterationCount("STRATA_DEADLOCK_ITERATIONS", default: 10_000)
        let watchdog = Watchdog()
        let reader = DispatchQueue(label: "deadlock.reader")
        let started = ContinuousClock.now

        await Watchdog.runBlocking {
            for i in 0..<iterations where !watchdog.hasFailed {
                let s1 = DispatchSemaphore(value: 0)
                let mainDone = DispatchSemaphore(value: 0), readerDone = DispatchSemaphore(value: 0)
                let title = "child iteration \(i)"
                DispatchQueue.main.async {
                    defer { mainDone.signal() }
                    do {
                        try main.performAndWait {
                            // 1.
                            guard let note = main.object(with: noteID) as? Note else { return watchdog.fail("[\(i)] not a note") }
                            note.title = title
                            s1.signal()
                            // 3.
                            try main.save()
                        }
                    } catch {
                        watchdog.fail("[\(i)] main: \(error)")
                        s1.signal()
                    }
                }   // 4.
                reader.async {
                    defer { readerDone.signal() }
                    // 2.
                    guard watchdog.wait(s1, "[\(i)] step 2: main's edit") else { return }
                    do {
                        try child.performAndWait {
                            let count = try child.fetch(FetchRequest<Note>()).count
                            watchdog.check(count == 20, "[\(i)] step 2: the child fetched \(count) notes, not 20")
                            // 5.
                            let matching = try child.count(for: FetchRequest<Note>(predicate: .key("title") == title))
                            watchdog.check(matching == 1, "[\(i)] step 5: the child counts \(matching) notes titled \(title), not 1")
                        }
                    } catch {
                        watchdog.fail("[\(i)] child: \(error)")
                    }
                }   // 6.
                guard watchdog.wait(mainDone, "[\(i)] the main-queue block"), watchdog.wait(readerDone, "[\(i)] the reader block") else { break }
                // 7.
                let merged = child.performAndWait { (child.object(with: noteID) as? Note)?.title }
                watchdog.check(merged == title, "[\(i)] step 7: the child's note reads \(merged ?? "nil"), not \(title)")
            }
        }

        let elapsed = ContinuousClock.now - started
        print("DeadlockTests.child…: \(iterations) iterations in \(elapsed)")
        #expect(watchdog.failures.isEmpty, "\(watchdog.failures.prefix(5).joined(separator: "\n"))")
        let stored = try await main.perform { try main.count(for: FetchRequest<Note>(predicate: .key("title") == "child iteration \(iterations - 1)")) }
        #expect(stored == 1)
    }
}

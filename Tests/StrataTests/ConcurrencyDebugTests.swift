import Dispatch
import Foundation
import Testing
@testable import Strata

/// The concurrency debug mode, tested as crashes: each exit test runs in a child process,
/// so a trap there is observed, not suffered, and a change to the global debug flag there
/// cannot leak into tests running in parallel.
@Suite struct ConcurrencyDebugTests {
    /// A private context on an in-memory store, with debug checks as `checks` says.
    static func makeContext(checks: Bool) async throws -> ObjectContext {
        let coordinator = try await StoreCoordinator(model: testModel, store: .inMemory)
        let previous = ObjectContext.concurrencyDebugging
        ObjectContext.concurrencyDebugging = checks
        defer { ObjectContext.concurrencyDebugging = previous }
        return ObjectContext(.privateQueue, coordinator: coordinator, name: "checked context")
    }

    @Test func touchingAContextOffItsQueueTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try await ConcurrencyDebugTests.makeContext(checks: true)
            _ = context.hasChanges  // off the context's queue
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Strata concurrency violation: the context was used off the queue of checked context."))
        #expect(message.contains("Wrap the code in checked context.perform { } or performAndWait { }."))
    }

    @Test func touchingAnObjectOffItsContextsQueueTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let context = try await ConcurrencyDebugTests.makeContext(checks: true)
            let note = context.performAndWait {
                let note = context.insert(Note.self)
                note.title = "confined"
                return note
            }
            _ = note.title  // the object escaped its context's queue
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Note object Note/t"))
        #expect(message.contains("was used off the queue of checked context"))
        #expect(message.contains("perform { }"))
    }

    @Test func insertingFromAnotherThreadTraps() async {
        await #expect(processExitsWith: .failure) {
            let context = try await ConcurrencyDebugTests.makeContext(checks: true)
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    _ = context.insert(Note.self)  // traps before resuming
                    done.resume()
                }
            }
        }
    }

    @Test func withoutDebugChecksOffQueueUseDoesNotTrap() async {
        await #expect(processExitsWith: .success) {
            let context = try await ConcurrencyDebugTests.makeContext(checks: false)
            guard !context.checksQueueAccess else { exit(2) }
            let note = context.performAndWait { context.insert(Note.self) }
            note.title = "unchecked"  // off the queue, but nothing else uses the context now
            guard note.title == "unchecked", context.hasChanges else { exit(3) }
        }
    }

    @Test func aMainQueueContextIsUsableOnTheMainQueueWithoutPerform() async throws {
        let coordinator = try await StoreCoordinator(model: testModel, store: .inMemory)
        let previous = ObjectContext.concurrencyDebugging
        ObjectContext.concurrencyDebugging = true
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        ObjectContext.concurrencyDebugging = previous
        #expect(main.checksQueueAccess)
        // On Linux the main queue runs on a worker thread; the check asks the queue, not the thread.
        let count = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            DispatchQueue.main.async {
                let note = main.insert(Note.self)
                note.title = "on main"
                done.resume(returning: main.insertedObjects.count)
            }
        }
        #expect(count == 1)
    }

    @Test func checksAreOnByDefaultInDebugBuilds() async throws {
        let coordinator = try await StoreCoordinator(model: testModel, store: .inMemory)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        #if DEBUG
        #expect(ObjectContext.concurrencyDebugging)
        #expect(context.checksQueueAccess == ObjectContext.concurrencyDebugging)
        #else
        #expect(!context.checksQueueAccess)
        #endif
    }
}

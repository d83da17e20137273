import Dispatch
import Foundation
import Testing
@testable import Strata

/// The concurrency debug mode, tested as crashes: each exit test runs in a child process,
/// so a trap there is observed, not suffered. No test changes the process-wide
/// `ObjectContext.concurrencyDebugging` (tests run in parallel, and every context created
/// meanwhile would read it): each asks for the checks it wants per context.
@Suite struct ConcurrencyDebugTests {
    /// A private context on an in-memory store, with debug checks as `checks` says.
    static func makeContext(checks: Bool) async throws -> ObjectContext {
        let coordinator = try await StoreCoordinator(model: testModel, store: .inMemory)
        return ObjectContext(.privateQueue, coordinator: coordinator, name: "checked context", checksQueueAccess: checks)
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

    /// A fetched object gets its owner's checks too (each access skips the owner when it does
    /// not check, so every path that gives an object its owner must pass the checks on).
    @Test func touchingAFetchedObjectOffItsContextsQueueTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (context, note) = try await ConcurrencyDebugTests.fetchedNote(asFault: false)
            _ = note.title  // the object escaped its context's queue
            withExtendedLifetime(context) {}
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Note object Note/p1 was used off the queue of checked context"))
    }

    /// The same for a fault: the check comes before the fault fires.
    @Test func touchingAFaultOffItsContextsQueueTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let (context, note) = try await ConcurrencyDebugTests.fetchedNote(asFault: true)
            _ = note.title  // the object escaped its context's queue
            withExtendedLifetime(context) {}
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Note object Note/p1 was used off the queue of checked context"))
    }

    /// A saved note fetched (fully, or as a fault) into a checked context, returned off its
    /// queue with the context (an object whose context is gone has no owner to check).
    static func fetchedNote(asFault: Bool) async throws -> (ObjectContext, Note) {
        let coordinator = try await StoreCoordinator(model: testModel, store: .inMemory)
        let writer = ObjectContext(.privateQueue, coordinator: coordinator, checksQueueAccess: false)
        try writer.performAndWait {
            writer.insert(Note.self).title = "saved"
            try writer.save()
        }
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "checked context", checksQueueAccess: true)
        return try context.performAndWait {
            var request = FetchRequest<Note>()
            request.returnsObjectsAsFaults = asFault
            let note = try context.fetch(request)[0]
            guard note.isFault == asFault else { exit(2) }
            return (context, note)
        }
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
        let main = ObjectContext(.mainQueue, coordinator: coordinator, checksQueueAccess: true)
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

    @Test func theSettingIsPerContextAndDefaultsToTheGlobal() async throws {
        let coordinator = try await StoreCoordinator(model: testModel, store: .inMemory)
        let global = ObjectContext.concurrencyDebugging
        for checks in [true, false] {
            let root = ObjectContext(.privateQueue, coordinator: coordinator, checksQueueAccess: checks)
            let child = ObjectContext(.privateQueue, parent: root, checksQueueAccess: checks)
            #expect(root.checksQueueAccess == checks)
            #expect(child.checksQueueAccess == checks)
            // A child without the argument takes the global default, not its parent's setting.
            #expect(ObjectContext(.privateQueue, parent: root).checksQueueAccess == global)
        }
        #expect(ObjectContext(.privateQueue, coordinator: coordinator).checksQueueAccess == global)
        #expect(ObjectContext.concurrencyDebugging == global)   // nothing changed the default
    }

    @Test func aChildContextOffItsQueueTraps() async throws {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let coordinator = try await StoreCoordinator(model: testModel, store: .inMemory)
            let parent = ObjectContext(.privateQueue, coordinator: coordinator, checksQueueAccess: false)
            let child = ObjectContext(.privateQueue, parent: parent, name: "checked child", checksQueueAccess: true)
            _ = parent.hasChanges   // unchecked: fine off the queue while nothing else runs
            _ = child.hasChanges    // checked: traps
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("the context was used off the queue of checked child."))
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

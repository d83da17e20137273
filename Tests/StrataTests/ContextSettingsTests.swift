import Dispatch
import Foundation
import Testing
@testable import Strata

/// A context's settings (merge policy, automatic merging) may be set from any thread, as Core
/// Data allows for a queue-based context's setters; touching objects still needs the queue.
@Suite struct ContextSettingsTests {
    /// Set-up code configures a new private context before its first `perform`, with debug
    /// checks on: nothing traps, and the context uses what was set. An exit test, so a
    /// regression shows as a failed expectation rather than a crashed test run.
    @Test func settingsAreSetOffTheQueueWithChecksOn() async {
        let directory = TemporaryDirectory(), url = directory.file()   // the parent's: a failing child exits before any deinit
        await #expect(processExitsWith: .success) { [url = url as URL] in
            let (coordinator, writer) = try await makeStore(file: url)
            let reader = ObjectContext(.privateQueue, coordinator: coordinator, name: "reader", checksQueueAccess: true)
            guard reader.checksQueueAccess else { exit(2) }
            // Off the queue, from another thread as well as this one.
            reader.mergePolicy = .mergeByPropertyStoreTrump
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async {
                    reader.automaticallyMergesChangesFromParent = true
                    done.resume()
                }
            }
            guard reader.mergePolicy == .mergeByPropertyStoreTrump, reader.automaticallyMergesChangesFromParent else { exit(3) }
            let id = try await writer.perform { () throws -> ObjectID in
                let note = writer.insert(Note.self)
                note.title = "v1"
                try writer.save()
                return note.objectID
            }
            let first = try await reader.perform { (try reader.existingObject(with: id) as? Note)?.title }
            try await writer.perform {
                (writer.object(with: id) as? Note)?.title = "v2"
                try writer.save()
            }
            // The automatic merge set off the queue is queued on the reader before this runs.
            let second = try await reader.perform { (reader.object(with: id) as? Note)?.title }
            guard first == "v1", second == "v2" else { exit(4) }
        }
    }

    /// The settings stay on their lock only: an object is still confined to the queue.
    @Test func objectsStillTrapOffTheQueue() async {
        let directory = TemporaryDirectory(), url = directory.file()   // the parent's: the child traps before any deinit
        await #expect(processExitsWith: .failure) { [url = url as URL] in
            let (coordinator, _) = try await makeStore(file: url)
            let context = ObjectContext(.privateQueue, coordinator: coordinator, checksQueueAccess: true)
            context.mergePolicy = .overwrite          // fine off the queue
            _ = context.insert(Note.self)             // traps: objects need the queue
        }
    }
}

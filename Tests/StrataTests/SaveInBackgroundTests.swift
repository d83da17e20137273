import Foundation
import GRDB
import Testing
@testable import Strata

/// `saveInBackground()`: the store writes off the context's queue, the queue stays free while
/// it does, and anything done with the context during the write comes after the save.
///
/// The write is held back by another connection holding the store's write lock, so each test
/// knows the save is still in flight when it looks.
@Suite struct SaveInBackgroundTests {
    /// An object carried between `perform` blocks of its context.
    final class Held<Object: ManagedObject>: @unchecked Sendable {  // safe: the object is touched only inside its context's blocks
        let object: Object
        init(_ object: Object) { self.object = object }
    }

    /// Another connection to the store, holding its write lock until ``release()``.
    final class WriteLock: @unchecked Sendable {  // safe: `queue` is GRDB's own serialized connection
        let queue: DatabaseQueue
        init(_ url: URL) async throws {
            var configuration = Configuration()
            configuration.allowsUnsafeTransactions = true  // the transaction spans two accesses on purpose
            queue = try DatabaseQueue(path: url.path, configuration: configuration)
            try await queue.writeWithoutTransaction { db in try db.execute(sql: "BEGIN IMMEDIATE") }
        }
        func release() async throws {
            try await queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
            try queue.close()
        }
        /// Releases the lock after `delay` seconds, from a serial dispatch queue of its own:
        /// the test's threads, and in a parallel run the global queues' few, may be blocked
        /// meanwhile, waiting for the write this lock holds back.
        func release(after delay: Double) {
            DispatchQueue(label: "write-lock-release").asyncAfter(deadline: .now() + delay) { [queue] in
                try? queue.writeWithoutTransaction { db in try db.execute(sql: "COMMIT") }
            }
        }
    }

    /// Waits until `context` has a save in flight (its batch was made and the write started).
    func untilInFlight(_ context: ObjectContext) async throws {
        for _ in 0..<2_000 {
            if try await context.perform({ context.saveInFlight != nil }) { return }
            try await Task.sleep(for: .milliseconds(1))
        }
        Issue.record("the save never started")
    }

    /// Starts `context.saveInBackground()` while another connection holds the store's write
    /// lock, waits until the save is in flight, lets the lock go 50 ms later, and runs `body`
    /// meanwhile; returns what `body` returned once the save ended.
    func duringTheWrite<T>(of context: ObjectContext, in dir: TemporaryDirectory, _ body: () async throws -> T) async throws -> T {
        let lock = try await WriteLock(dir.file())
        let saving = Task { try await context.saveInBackground() }
        try await untilInFlight(context)
        lock.release(after: 0.05)
        let result = try await body()
        try await saving.value
        return result
    }

    /// The titles of the notes stored in `url`, read by a connection of their own.
    func storedTitles(_ url: URL) throws -> [String] {
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        return try queue.read { try String.fetchAll($0, sql: "SELECT title FROM Note ORDER BY title") }
    }

    @Test func theQueueIsFreeWhileTheStoreWrites() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let held = try await context.perform { () -> Held<Note> in
            let note = context.insert(Note.self)
            note.title = "first"
            return Held(note)
        }
        let lock = try await WriteLock(dir.file())
        let saving = Task { try await context.saveInBackground() }
        try await untilInFlight(context)
        // The queue runs this while the write waits for the lock: the object reads as it is,
        // still unsaved.
        let during = try await context.perform { (held.object.title, held.object.objectID.isTemporary, held.object.isInserted, context.saveInFlight != nil) }
        #expect(during == ("first", true, true, true))
        try await lock.release()
        try await saving.value
        let after = try await context.perform { (held.object.objectID.isTemporary, held.object.isInserted, held.object.hasChanges, context.hasChanges, context.saveInFlight == nil) }
        #expect(after == (false, false, false, false, true))
        #expect(try storedTitles(dir.file()) == ["first"])
    }

    @Test func aChangeDuringTheWriteComesAfterTheSave() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let held = try await context.perform { () -> Held<Note> in
            let note = context.insert(Note.self)
            note.title = "first"
            return Held(note)
        }
        // The change waits for the write and applies the save first: the object is then a
        // saved one with one new change.
        let changed = try await duringTheWrite(of: context, in: dir) {
            try await context.perform { () -> (Bool, Bool, Bool, [String]) in
                let note = held.object
                note.title = "second"
                return (note.objectID.isTemporary, note.isInserted, note.isUpdated, Array(note.changedValues().keys))
            }
        }
        #expect(changed.0 == false)
        #expect(changed.1 == false)
        #expect(changed.2 == true)
        #expect(changed.3 == ["title"])
        #expect(try storedTitles(dir.file()) == ["first"])
        try await context.perform { try context.save() }
        #expect(try storedTitles(dir.file()) == ["second"])
    }

    /// A first change to an object the save does not hold also waits: the pending sets are
    /// the save's until it is applied, so the change is neither saved by it nor cleared.
    @Test func aFirstChangeToAnotherObjectDuringTheWriteIsKept() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let held = try await context.perform { () throws -> Held<Note> in
            let other = context.insert(Note.self)
            other.title = "other"
            try context.save()
            context.insert(Note.self).title = "new"
            return Held(other)
        }
        let during = try await duringTheWrite(of: context, in: dir) {
            try await context.perform { () -> (Int, Int, Bool) in
                held.object.title = "other, edited"
                return (context.insertedObjects.count, context.updatedObjects.count, context.updatedObjects.contains(held.object))
            }
        }
        #expect(during == (0, 1, true))
        #expect(try storedTitles(dir.file()) == ["new", "other"])
        try await context.perform { try context.save() }
        #expect(try storedTitles(dir.file()) == ["new", "other, edited"])
    }

    /// Undo records a change made during the write after the save is applied: the save ends
    /// the history, the change starts the new one.
    @Test func aChangeDuringTheWriteCanBeUndone() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let held = try await context.perform { () -> Held<Note> in
            context.undoManager = ContextUndoManager()
            let note = context.insert(Note.self)
            note.title = "first"
            return Held(note)
        }
        let undone = try await duringTheWrite(of: context, in: dir) {
            try await context.perform { () -> (Bool, String, Bool) in
                held.object.title = "second"
                let could = context.undoManager?.canUndo ?? false
                context.undo()
                return (could, held.object.title, held.object.hasChanges)
            }
        }
        #expect(undone == (true, "first", false))
    }

    @Test func aFetchDuringTheWriteFindsEachInsertOnce() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        try await context.perform {
            for title in ["a", "b", "c"] { context.insert(Note.self).title = title }
        }
        let fetched = try await duringTheWrite(of: context, in: dir) {
            try await context.perform { () -> ([String], Bool) in
                let notes = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
                return (notes.map(\.title), notes.allSatisfy { !$0.objectID.isTemporary && !$0.hasChanges })
            }
        }
        #expect(fetched.0 == ["a", "b", "c"])
        #expect(fetched.1)
    }

    @Test func aChildsSaveDuringTheWriteLandsAfterIt() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let held = try await context.perform { () -> Held<Folder> in
            let folder = context.insert(Folder.self)
            folder.name = "inbox"
            return Held(folder)
        }
        let child = ObjectContext(.privateQueue, parent: context)
        try await duringTheWrite(of: context, in: dir) {
            let folderID = try await context.perform { held.object.objectID }   // still temporary
            try await child.perform {
                let inbox = try child.existingObject(with: folderID) as? Folder
                let note = child.insert(Note.self)
                note.title = "in the inbox"
                note.folder = inbox
                try child.save()
            }
        }
        let parentSide = try await context.perform { (held.object.objectID.isTemporary, held.object.notes.map(\.title), context.insertedObjects.count) }
        #expect(parentSide.0 == false)
        #expect(parentSide.1 == ["in the inbox"])
        #expect(parentSide.2 == 1)
        try await context.perform { try context.save() }
        #expect(try storedTitles(dir.file()) == ["in the inbox"])
    }

    /// A second save started during the first's write applies the first, then writes its own;
    /// each caller gets its own save's outcome.
    @Test func aSecondSaveDuringTheWriteComesAfterTheFirst() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        try await context.perform { context.insert(Note.self).title = "a" }
        let second = try await duringTheWrite(of: context, in: dir) {
            try await context.perform { context.insert(Note.self).title = "b" }   // waits, applies the first save
            let second = Task { try await context.saveInBackground() }
            try await second.value
            return try await context.perform { (context.hasChanges, context.saveInFlight == nil, context.registeredObjects.allSatisfy { !$0.objectID.isTemporary }) }
        }
        #expect(second == (false, true, true))
        #expect(try storedTitles(dir.file()) == ["a", "b"])
    }

    @Test func aFailedSaveKeepsEveryChangeAndCanBeSavedAgain() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let held = try await context.perform { () throws -> Held<Note> in
            let note = context.insert(Note.self)
            note.title = "original"
            try context.save()
            return Held(note)
        }
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let id = try await context.perform { held.object.objectID }
        try await other.perform {
            (try other.existingObject(with: id) as? Note)?.title = "theirs"
            try other.save()
        }
        try await context.perform { held.object.rating = 3 }
        await #expect(throws: StrataError.self) { try await context.saveInBackground() }
        let kept = try await context.perform { (held.object.isUpdated, held.object.rating, held.object.lifecycle.isSaving, context.saveInFlight == nil) }
        #expect(kept == (true, 3, false, true))
        try await context.perform { context.mergePolicy = .mergeByPropertyObjectTrump }
        try await context.saveInBackground()
        let queue = try DatabaseQueue(path: dir.file().path)
        defer { try? queue.close() }
        let stored = try queue.read { try Row.fetchOne($0, sql: "SELECT title, rating FROM Note") }
        #expect(stored?["title"] == "theirs")
        #expect(stored?["rating"] == 3)
    }

    @Test func aValidationErrorIsThrownBeforeAnythingIsWritten() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        try await context.perform { context.insert(Note.self).title = "invalid" }
        await #expect(throws: StrataError.self) { try await context.saveInBackground() }
        #expect(try await context.perform { context.saveInFlight == nil && context.hasChanges })
        #expect(try storedTitles(dir.file()) == [])
    }

    /// The store asks whether the saving context holds the row an insert collides with; off
    /// the queue it asks a copy of the registered IDs, and answers as `save()` does.
    @Test(arguments: [false, true])
    func aUniqueCollisionWithAHeldRowIsAConflictEitherWay(inBackground: Bool) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        try await context.perform {
            let note = context.insert(Note.self)
            note.uniqueIdentifier = "server-42"
            note.title = "held"
            try context.save()
            context.mergePolicy = .mergeByPropertyObjectTrump
            let copy = context.insert(Note.self)
            copy.uniqueIdentifier = "server-42"
            copy.title = "copy"
        }
        var code: StrataError.Code?
        do {
            if inBackground { try await context.saveInBackground() } else { try await context.perform { try context.save() } }
        } catch let error as StrataError {
            code = error.code
        }
        #expect(code == .conflict)
        #expect(try storedTitles(dir.file()) == ["held"])
    }

    @Test func aChildsCallIsItsPush() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let child = ObjectContext(.privateQueue, parent: context)
        try await child.perform { child.insert(Note.self).title = "pushed" }
        try await child.saveInBackground()
        #expect(try await context.perform { context.insertedObjects.map { ($0 as? Note)?.title } } == ["pushed"])
        #expect(try storedTitles(dir.file()) == [])
    }

    /// A child of a private-queue context (main under the writer): the push's change set is
    /// made off the child's queue, then the batch goes to the parent and the objects are saved.
    @Test func aChildOfAPrivateContextPushesInTheBackground() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, parent) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let child = ObjectContext(.privateQueue, parent: parent)
        let saved = try await child.perform { () throws -> Held<Note> in
            let note = child.insert(Note.self)
            note.title = "first"
            try child.save()
            note.title = "second"
            child.insert(Note.self).title = "new"
            return Held(note)
        }
        let reported = Locked<[ChangeSet]>([])
        let observation = child.observeChanges { changes in reported.withLock { $0.append(changes) } }
        defer { observation.cancel() }
        try await child.saveInBackground()
        let after = try await child.perform { (child.hasChanges, saved.object.hasChanges, child.saveInFlight == nil) }
        #expect(after == (false, false, true))
        let pushed = reported.withLock { $0.last }
        #expect(pushed?.inserted.count == 1)
        #expect(pushed?.updated[saved.object.objectID]?["title"] == .string("second"))
        let inParent = try await parent.perform { () -> [String] in
            (parent.insertedObjects.compactMap { ($0 as? Note)?.title }).sorted()
        }
        #expect(inParent == ["new", "second"])
        #expect(try storedTitles(dir.file()) == [])
    }

    /// A change made on the child's queue while its push is in flight waits for the push and
    /// comes after it: the push carries the value before, the change stays pending.
    @Test func aChangeDuringAPushInFlightComesAfterThePush() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, parent) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let child = ObjectContext(.privateQueue, parent: parent)
        let during = try await child.perform { () throws -> (Bool, [String], Bool) in
            let note = child.insert(Note.self)
            note.title = "first"
            let flight = try child.beginSaveInBackground()
            note.title = "second"   // settles the push first
            return (flight != nil && child.saveInFlight == nil, Array(note.changedValues().keys), note.isInserted)
        }
        #expect(during.0, "the push was not in flight, or the change did not settle it")
        #expect(during.1 == ["title"])
        #expect(during.2 == false)
        #expect(try await parent.perform { parent.insertedObjects.compactMap { ($0 as? Note)?.title } } == ["first"])
        try await child.saveInBackground()
        #expect(try await parent.perform { parent.insertedObjects.compactMap { ($0 as? Note)?.title } } == ["second"])
    }

    @Test func aMainQueueContextsSaveDoesNotWriteOnTheMainQueue() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        defer { try? coordinator.close() }
        let main = ObjectContext(.mainQueue, coordinator: coordinator)
        try await main.perform { for i in 0..<3 { main.insert(Note.self).title = "n\(i)" } }
        try await main.saveInBackground()
        #expect(coordinator.mainQueueWrites == 0)
        try await main.perform { main.insert(Note.self).title = "n3" }
        try await main.perform { try main.save() }
        #expect(coordinator.mainQueueWrites == 1)
        #expect(try storedTitles(dir.file()) == ["n0", "n1", "n2", "n3"])
    }
}

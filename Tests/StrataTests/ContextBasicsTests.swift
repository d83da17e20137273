import Dispatch
import Foundation
import GRDB
import Testing
@testable import Strata

@Suite struct ContextBasicsTests {
    @Test func insertSaveReopenFindsEverything() async throws {
        let dir = TemporaryDirectory()
        do {
            let (_, context) = try await makeStore(dir)
            try await context.perform {
                let folder = context.insert(Folder.self)
                folder.name = "Inbox"
                let note = context.insert(Note.self)
                note.title = "Hello"
                note.metadata = ["k": "v"]
                note.rating = 4
                note.folder = folder
                #expect(folder.notes.contains(note))        // inverse maintained at once
                #expect(note.objectID.isTemporary)
                try context.save()
                #expect(!note.objectID.isTemporary)
                #expect(!context.hasChanges)
            }
        }
        let (_, reopened) = try await makeStore(dir)
        try await reopened.perform {
            let notes = try reopened.fetch(FetchRequest<Note>())
            #expect(notes.count == 1)
            let note = try #require(notes.first)
            #expect(note.title == "Hello")
            #expect(note.metadata == ["k": "v"])
            #expect(note.rating == 4)
            #expect(note.subtitle == nil)
            #expect(note.folder?.name == "Inbox")
            #expect(note.folder?.notes.count == 1)
            #expect(note.uniqueIdentifier.count == 36)   // awakeFromInsert ran
        }
    }

    @Test func perInsertDefaultsAreEvaluatedPerObject() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let a = context.insert(Note.self)
            let afterA = Date()
            while Date() <= afterA {}        // until the clock has moved past `afterA` (a condition, not a sleep)
            let b = context.insert(Note.self)
            #expect(a.created <= afterA)
            #expect(b.created > afterA)      // b's default was taken at b's insert, not reused from a's or the model's
            #expect(a.created < b.created)
            #expect(a.uniqueIdentifier != b.uniqueIdentifier)
        }
    }

    @Test func uniquingGivesOneObjectPerID() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let note = context.insert(Note.self)
            note.title = "x"
            try context.save()
            let fetched = try context.fetch(FetchRequest<Note>())
            #expect(fetched.first === note)
            #expect(context.object(with: note.objectID) === note)
            #expect(try context.existingObject(with: note.objectID) === note)
        }
    }

    @Test func keyBasedAccessReadsAndWrites() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let note = context.insert(Note.self)
            note["title"] = "Keyed"
            #expect(note.title == "Keyed")
            #expect(note["title"] as? String == "Keyed")
            try note.setValue(3, forKey: "rating")
            #expect(note.rating == 3)
            let folder = context.insert(Folder.self)
            try note.setValue(folder, forKey: "folder")
            #expect(note.folder === folder)
            #expect((folder["notes"] as? Set<ManagedObject>)?.contains(note) == true)
            #expect(throws: StrataError.self) { try note.setValue("x", forKey: "nope") }
            #expect(throws: StrataError.self) { try note.setValue("not a number", forKey: "rating") }
        }
    }

    /// A `PropertyValue` handed to `setValue(_:forKey:)` must be of the attribute's kind, as
    /// any other value is: a text in an integer attribute would otherwise reach SQLite (which
    /// stores it as given) and come back as a value that does not decode.
    @Test func aPropertyValueOfTheWrongKindIsRefused() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let note = context.insert(Note.self)
            note.title = "Kept"
            #expect(throws: StrataError.self) { try note.setValue(PropertyValue.string("x"), forKey: "rating") }
            #expect(throws: StrataError.self) { try note.setValue(PropertyValue.integer(1), forKey: "title") }
            #expect(throws: StrataError.self) { try note.setValue(PropertyValue.string("{}"), forKey: "metadata") }
            #expect(throws: StrataError.self) { try note.setValue(PropertyValue.double(1), forKey: "created") }
            #expect(note.title == "Kept" && note.rating == 0)
            #expect(PropertyValue.integer(3).fitting(.double) == .double(3))
            #expect(PropertyValue.integer(3).fitting(.decimal) == .decimal(3))
            #expect(PropertyValue.bool(true).fitting(.int64) == nil)
            try note.setValue(PropertyValue.integer(7), forKey: "rating")
            try note.setValue(PropertyValue.null, forKey: "subtitle")
            try note.setValue(PropertyValue.string("Set"), forKey: "subtitle")
            #expect(note.rating == 7 && note.subtitle == "Set")
            // nil in a required attribute is refused at save, as Core Data validates.
            try note.setValue(PropertyValue.null, forKey: "title")
            #expect(throws: StrataError.self) { try context.save() }
            try note.setValue(PropertyValue.string("Kept"), forKey: "title")
            try context.save()
        }
    }

    @Test func changedAndCommittedValues() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let note = context.insert(Note.self)
            note.title = "Old"
            try context.save()
            #expect(note.changedValues().isEmpty)
            #expect(!note.isUpdated)
            note.title = "New"
            #expect(note.isUpdated)
            #expect(note.changedValues() == ["title": .string("New")])
            #expect(note.committedValues(forKeys: ["title"]) == ["title": .string("Old")])
            note.title = "Old"   // back to the saved value: still tracked, but no difference
            #expect(note.changedValues().isEmpty)
        }
    }

    @Test func rollbackRestoresSavedState() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let folder = context.insert(Folder.self)
            folder.name = "A"
            let note = context.insert(Note.self)
            note.folder = folder
            try context.save()
            note.title = "changed"
            let other = context.insert(Folder.self)
            note.folder = other
            context.delete(folder)
            context.rollback()
            #expect(note.title == "")
            #expect(note.folder === folder)
            #expect(folder.notes == [note])
            #expect(!folder.isDeleted)
            #expect(!context.hasChanges)
            #expect(try context.count(for: FetchRequest<Folder>()) == 1)
        }
    }

    @Test func refreshDiscardsOrKeepsChanges() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let note = context.insert(Note.self)
            note.title = "saved"
            try context.save()
            note.title = "unsaved"
            context.refresh(note, mergeChanges: false)
            #expect(note.isFault)
            #expect(note.title == "saved")
            #expect(!context.hasChanges)
            note.title = "kept"
            context.refresh(note, mergeChanges: true)
            #expect(note.title == "kept")
        }
    }

    @Test func resetForgetsObjects() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let note = context.insert(Note.self)
            try context.save()
            context.reset()
            #expect(context.registeredObjects.isEmpty)
            let again = try context.existingObject(with: note.objectID)
            #expect(again !== note)
        }
    }

    @Test func registeredObjectNeverMakesAFault() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (temporary, permanent) = try await context.perform {
            let note = context.insert(Note.self)
            let temporary = note.objectID
            #expect(context.registeredObject(for: temporary) === note)
            try context.save()
            #expect(context.registeredObject(for: note.objectID) === note)
            #expect(context.registeredObject(for: temporary) === note)   // the saved insert, under its old ID
            return (temporary, note.objectID)
        }
        #expect(temporary != permanent)
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        other.performAndWait {
            #expect(other.registeredObject(for: permanent) == nil)
            #expect(other.registeredObjects.isEmpty)   // asking made nothing
            let fault = other.object(with: permanent)
            #expect(other.registeredObject(for: permanent) === fault)
            #expect(fault.isFault)   // and read nothing
        }
    }

    @Test func existingObjectOfMissingRowIsATypedError() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let id = try await context.perform {
            let note = context.insert(Note.self)
            try context.save()
            return note.objectID
        }
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            context.delete(context.object(with: id))
            try context.save()
        }
        try await other.perform {
            do { _ = try other.existingObject(with: id); Issue.record("expected objectNotFound") }
            catch let error as StrataError { #expect(error.code == .objectNotFound) }
            catch { Issue.record("unexpected \(error)") }
        }
    }

    @Test func uriRoundTrip() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let id = try await context.perform {
            let note = context.insert(Note.self)
            try context.save()
            return note.objectID
        }
        #expect(id.uriRepresentation.absoluteString.hasPrefix("strata:///Note/p"))
        #expect(coordinator.objectID(forURI: id.uriRepresentation) == id)
        #expect(coordinator.objectID(forURI: URL(string: "strata:///Nope/p1")!) == nil)
    }

    @Test func aStoreNamingURIIsRefusedByAnotherStore() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (otherCoordinator, _) = try await makeStore(dir, name: "other.sqlite")
        let id = try await context.perform {
            let note = context.insert(Note.self)
            try context.save()
            return note.objectID
        }
        let uri = coordinator.uriRepresentation(for: id)
        #expect(uri.absoluteString == "strata://\(coordinator.storeIdentifier.uuidString)/Note/p\(try #require(id.primaryKey))")
        #expect(coordinator.objectID(forURI: uri) == id)
        #expect(otherCoordinator.storeIdentifier != coordinator.storeIdentifier)
        #expect(otherCoordinator.objectID(forURI: uri) == nil)
        #expect(otherCoordinator.objectID(forURI: id.uriRepresentation) == id)   // store-less: any store of the model
        #expect(coordinator.objectID(forURI: URL(string: "strata://not-a-uuid/Note/p1")!) == nil)
    }

    @Test func performAndWaitIsReentrant() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let value = try await context.perform {
            context.performAndWait { context.performAndWait { 42 } }
        }
        #expect(value == 42)
    }
}

/// Weak references to objects, to see whether a graph is freed.
final class WeakObjects: @unchecked Sendable {  // safe: written and read on one context's queue, then read after it is gone
    weak var note: Note?
    weak var folder: Folder?
}

@Suite struct MemoryTests {
    @Test func resetFreesARelatedGraph() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let weak = WeakObjects()
        try await context.perform {
            let folder = context.insert(Folder.self)
            let note = context.insert(Note.self)
            note.folder = folder                    // note ⇄ folder hold each other strongly
            try context.save()
            weak.note = note
            weak.folder = folder
            context.reset()
        }
        #expect(weak.note == nil)
        #expect(weak.folder == nil)
    }

    @Test func aDroppedContextFreesItsGraph() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, _) = try await makeStore(dir)
        let weak = WeakObjects()
        let queue: ContextQueue
        do {
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            queue = context.queue
            try await context.perform {
                let folder = context.insert(Folder.self)
                let note = context.insert(Note.self)
                note.folder = folder
                try context.save()
                _ = folder.notes.count
                weak.note = note
                weak.folder = folder
            }
        }
        // The block `perform` ran holds the context until it returns, which may be after our
        // continuation resumed. The queue is serial and releases each block before running the
        // next: once a block queued now runs, that last reference is gone.
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in queue.async { drained.resume() } }
        #expect(weak.note == nil)
        #expect(weak.folder == nil)
    }
}

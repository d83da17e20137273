import Foundation
import Testing
@testable import Strata

/// Thread-safe collection of what observers receive.
final class Received<T: Sendable>: @unchecked Sendable {  // safe: every access holds the lock
    private let lock = NSLock()
    private var items: [T] = []
    func append(_ item: T) { lock.withLock { items.append(item) } }
    var all: [T] { lock.withLock { items } }
}

@Suite struct MergeTests {
    @Test func savePublishesChangeSetToCallbackAndSequence() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let received = Received<ChangeSet>()
        let token = context.observeChanges { received.append($0) }
        let stream = context.changeSets()
        let (noteID, folderID) = try await context.perform { () throws -> (ObjectID, ObjectID) in
            let folder = context.insert(Folder.self)
            let note = context.insert(Note.self)
            note.folder = folder
            try context.save()
            note.title = "changed"
            try context.save()
            context.delete(note)
            try context.save()
            return (note.objectID, folder.objectID)
        }
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        #expect(first?.inserted == [noteID, folderID])
        #expect(first?.permanentIDs.count == 2)
        let second = await iterator.next()
        #expect(second?.updated[noteID]?["title"] == .string("changed"))
        let third = await iterator.next()
        #expect(third?.deleted.contains(noteID) == true)
        #expect(third?.updated[folderID]?["notes"] == .objectIDs([]))   // the inverse side is reported too
        #expect(received.all.count == 3)
        token.cancel()
        try await context.perform { _ = context.insert(Tag.self); try context.save() }
        #expect(received.all.count == 3)
    }

    /// A merge walks whichever is smaller, the context's registry or the change set's updates
    /// (a main context holding a screenful while an import's updates arrive, or the reverse):
    /// either way the objects held take their updates and nothing else is registered.
    @Test(arguments: [false, true]) func updatesReachTheObjectsHeldWhicheverSideIsSmaller(holdsMany: Bool) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        let ids = try await writer.perform { () throws -> [ObjectID] in
            let notes = (0..<20).map { i in
                let note = writer.insert(Note.self)
                note.title = "old \(i)"
                return note
            }
            for i in 0..<40 { writer.insert(Folder.self).name = "f\(i)" }
            try writer.save()
            return notes.map(\.objectID)
        }
        let main = ObjectContext(.privateQueue, coordinator: coordinator)
        let registered = try await main.perform { () throws -> Int in
            for id in ids.prefix(2) { _ = (try main.existingObject(with: id) as? Note)?.title }
            if holdsMany { _ = try main.fetch(FetchRequest<Folder>()) }
            return main.registeredObjects.count
        }
        #expect(registered == (holdsMany ? 42 : 2))
        let received = Received<ChangeSet>()
        let token = writer.observeChanges { received.append($0) }
        try await writer.perform {
            for id in ids.prefix(10) { (try writer.existingObject(with: id) as? Note)?.title = "new" }
            try writer.save()
        }
        token.cancel()
        let changes = try #require(received.all.first)
        #expect(changes.updated.count == 10)
        let (titles, count) = try await main.perform { () throws -> ([String], Int) in
            main.merge(changes)
            let titles = try ids.prefix(2).map { try #require(main.registeredObject(for: $0) as? Note).title }
            return (titles, main.registeredObjects.count)
        }
        #expect(titles == ["new", "new"])
        #expect(count == registered)
    }

    /// A fault a root context made from another context's temporary ID takes its permanent ID
    /// from the saver's merged change set, found from the smaller side (here the registry: one
    /// object against the save's five new IDs); the others concern nothing here.
    @Test func aFaultOfAHandedTemporaryIDLearnsItsPermanentIDAmongManyNewOnes() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, importer) = try await makeStore(dir)
        let main = ObjectContext(.privateQueue, coordinator: coordinator)
        let temporary = importer.performAndWait { () -> ObjectID in
            let notes = (0..<5).map { i in
                let note = importer.insert(Note.self)
                note.title = "n\(i)"
                return note
            }
            return notes[2].objectID
        }
        let fault = main.performAndWait { main.object(with: temporary) }
        let received = Received<ChangeSet>()
        let token = importer.observeChanges { received.append($0) }
        try await importer.perform { try importer.save() }
        token.cancel()
        let changes = try #require(received.all.first)
        let permanent = try #require(changes.permanentIDs[temporary])
        let (renamed, count) = main.performAndWait { () -> (Bool, Int) in
            main.merge(changes)
            return (main.registeredObject(for: permanent) === fault && fault.objectID == permanent, main.registeredObjects.count)
        }
        #expect(changes.permanentIDs.count == 5)
        #expect(renamed)
        #expect(count == 1)
        #expect(main.performAndWait { (fault as? Note)?.title } == "n2")
    }

    @Test func willSaveHookSeesOldAndNewValues() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let received = Received<ChangeBatch>()
        let token = context.observeWillSave { received.append($0) }
        let id = try await context.perform { () throws -> ObjectID in
            let note = context.insert(Note.self)
            note.title = "old"
            try context.save()
            note.title = "new"
            try context.save()
            context.delete(note)
            try context.save()
            return note.objectID
        }
        let all = received.all
        #expect(all.count == 3)
        #expect(all[0].inserted.first?.value(forKey: "title") == .string("old"))
        #expect(all[0].inserted.first?.oldValue(forKey: "title") == .null)
        let update = try #require(all[1].updated.first)
        #expect(update.id == id && update.changedKeys == ["title"])
        #expect(update.oldValue(forKey: "title") == .string("old") && update.value(forKey: "title") == .string("new"))
        #expect(all[2].deleted.first?.id == id && all[2].deleted.first?.value(forKey: "title") == .string("new"))
        _ = token
    }

    @Test func mergeRefreshesRegisteredObjectsOnly() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        let (ids, folderID) = try await writer.perform { () throws -> ([ObjectID], ObjectID) in
            let folder = writer.insert(Folder.self)
            let notes = (0..<3).map { i -> Note in let n = writer.insert(Note.self); n.title = "t\(i)"; n.folder = folder; return n }
            try writer.save()
            return (notes.map(\.objectID), folder.objectID)
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let folder = try #require(try reader.existingObject(with: folderID) as? Folder)
            #expect(folder.notes.count == 3)
            _ = try reader.existingObject(with: ids[0])
            _ = try reader.existingObject(with: ids[1])
        }
        let changes = try await writer.perform { () throws -> ChangeSet in
            let received = Received<ChangeSet>()
            let token = writer.observeChanges { received.append($0) }
            (writer.object(with: ids[0]) as? Note)?.title = "renamed"
            writer.delete(writer.object(with: ids[1]))
            let extra = writer.insert(Note.self); extra.title = "new"; extra.folder = writer.object(with: folderID) as? Folder
            try writer.save()
            _ = token
            return try #require(received.all.first)
        }
        try await reader.perform {
            let before = reader.registeredObjects.count
            reader.merge(changes)
            #expect((reader.object(with: ids[0]) as? Note)?.title == "renamed")
            #expect(reader.registeredObjects.count == before - 1)          // the deleted note is gone, the new one not made
            #expect(!reader.registeredObjects.contains { $0.objectID == ids[1] })
            let folder = try #require(reader.object(with: folderID) as? Folder)
            #expect(Set(folder.notes.map(\.title)) == ["renamed", "t2", "new"])   // re-read when touched
            #expect(!reader.hasChanges)
        }
    }

    @Test(arguments: MergePolicy.allCases)
    /// As in Core Data, a merge keeps unsaved local edits whatever the policy (the policy acts
    /// at save); the merge brings the row's new version, so the kept edit saves without a conflict.
    func mergeKeepsLocalEditsUnderEveryPolicy(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        let id = try await writer.perform { () throws -> ObjectID in
            let note = writer.insert(Note.self); note.title = "base"; note.rating = 1
            try writer.save()
            return note.objectID
        }
        let editor = ObjectContext(.privateQueue, coordinator: coordinator)
        try await editor.perform {
            editor.mergePolicy = policy
            let note = try #require(try editor.existingObject(with: id) as? Note)
            note.title = "local"
        }
        let received = Received<ChangeSet>()
        let token = writer.observeChanges { received.append($0) }
        try await writer.perform {
            let note = try #require(writer.object(with: id) as? Note)
            note.title = "incoming"; note.rating = 5
            try writer.save()
        }
        _ = token
        let changes = try #require(received.all.first)
        try await editor.perform {
            editor.merge(changes)
            let note = try #require(editor.object(with: id) as? Note)
            #expect(note.rating == 5)                                   // untouched keys always take the incoming value
            #expect(note.title == "local")
            #expect(editor.hasChanges)
            #expect(note.committedValues(forKeys: ["title"])["title"] == .string("incoming"))
            try editor.save()                                           // no conflict: the merge brought the new version
        }
        let stored = try await coordinator.database.read { try String.fetchOne($0, sql: "SELECT title FROM Note") }
        #expect(stored == "local")
    }

    @Test func automaticMergeFromParentAndFromSiblingRoots() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, root) = try await makeStore(dir)
        let id = try await root.perform { () throws -> ObjectID in
            let note = root.insert(Note.self); note.title = "v1"
            try root.save()
            return note.objectID
        }
        let child = ObjectContext(.privateQueue, parent: root)
        let sibling = ObjectContext(.privateQueue, coordinator: coordinator)
        for context in [child, sibling] {
            try await context.perform {
                context.automaticallyMergesChangesFromParent = true
                let note = try context.existingObject(with: id) as? Note
                #expect(note?.title == "v1")
            }
        }
        try await root.perform {
            (root.object(with: id) as? Note)?.title = "v2"
            try root.save()
        }
        // Merges are queued on each context's queue before this perform runs.
        let inChild = try await child.perform { (child.object(with: id) as? Note)?.title }
        let inSibling = try await sibling.perform { (sibling.object(with: id) as? Note)?.title }
        #expect(inChild == "v2")
        #expect(inSibling == "v2")
    }

    /// A merge of another root's save passes down to children only the permanent IDs they can
    /// name (none of another context's new objects), while its own observers see the change
    /// set as saved; a parent's own save passes all of them down.
    @Test func aMergePassesDownOnlyThePermanentIDsChildrenCanName() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        let main = ObjectContext(.privateQueue, parent: writer)
        let importer = ObjectContext(.privateQueue, coordinator: coordinator)
        main.performAndWait { main.automaticallyMergesChangesFromParent = true }
        let inWriter = Received<ChangeSet>(), inMain = Received<ChangeSet>(), saved = Received<ChangeSet>()
        let tokens = [writer.observeChanges { inWriter.append($0) }, main.observeChanges { inMain.append($0) },
                      importer.observeChanges { saved.append($0) }]
        try await importer.perform {
            for i in 0..<3 { importer.insert(Note.self).title = "n\(i)" }
            try importer.save()
        }
        let imported = try #require(saved.all.last)
        #expect(imported.permanentIDs.count == 3)
        writer.performAndWait { writer.merge(imported) }
        let mainSaw = try await main.perform { inMain.all }
        #expect(inWriter.all.last?.permanentIDs.count == 3)   // the writer's observers: as saved
        #expect(mainSaw.last?.inserted.count == 3)
        #expect(mainSaw.last?.permanentIDs.isEmpty == true)   // nothing in main can name them

        // The writer's own save: main holds its new object's temporary ID, and gets them all.
        let pushed = try await main.perform { () throws -> ObjectID in
            let note = main.insert(Note.self)
            try main.save()
            return note.objectID
        }
        try await writer.perform { try writer.save() }
        let permanent = try await main.perform { () -> ObjectID? in
            inMain.all.last?.permanentIDs[pushed]
        }
        #expect(permanent != nil && permanent?.isTemporary == false)
        #expect(main.performAndWait { main.registeredObject(for: pushed)?.objectID } == permanent)

        // An object main names only by ID (a to-one of a note it read from the writer) learns
        // its permanent ID from the writer's save.
        let noteID = try await writer.perform { () throws -> ObjectID in
            let note = writer.insert(Note.self), folder = writer.insert(Folder.self)
            note.folder = folder
            try writer.obtainPermanentIDs(for: [note])
            return note.objectID
        }
        let read = try await main.perform { () throws -> Bool in (try main.existingObject(with: noteID) as? Note) != nil }
        #expect(read)
        try await writer.perform { try writer.save() }
        let folderID = try await main.perform { () throws -> ObjectID? in
            (try main.existingObject(with: noteID) as? Note)?.folder?.objectID
        }
        #expect(folderID?.isTemporary == false)
        tokens.forEach { $0.cancel() }
    }
}

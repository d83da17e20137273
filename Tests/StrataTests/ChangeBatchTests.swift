import Foundation
import Testing
@testable import Strata

/// The change batch: what a save hands to the store, a child to its parent, and will-save
/// observers see; and the change set the store's answer becomes.
@Suite struct ChangeBatchTests {
    @Test func batchCarriesInsertsNetUpdatesAndDeletesAsValues() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let received = Received<ChangeBatch>()
        let token = context.observeWillSave { received.append($0) }
        let (noteID, folderID, tagID) = try await context.perform { () throws -> (ObjectID, ObjectID, ObjectID) in
            let folder = context.insert(Folder.self)
            folder.name = "Inbox"
            let tag = context.insert(Tag.self)
            let note = context.insert(Note.self)
            note.title = "first"
            note.uniqueIdentifier = "n1"
            note.folder = folder
            note.tags = [tag]
            try context.save()
            note.title = "second"
            note.rating = 3
            note.rating = 0            // changed and changed back: not part of the batch
            note.tags = []
            try context.save()
            context.delete(folder)     // cascades to the note
            try context.save()
            return (note.objectID, folder.objectID, tag.objectID)
        }
        let batches = received.all
        #expect(batches.count == 3)
        let insert = try #require(batches[0].inserted.first { $0.id.entity.name == "Note" })
        #expect(insert.isInsert && insert.id.isTemporary && insert.version == 0)
        #expect(insert.value(forKey: "title") == .string("first"))
        #expect(insert.keyedValues["uniqueIdentifier"] == .string("n1"))
        let folderInsert = try #require(batches[0].inserted.first { $0.id.entity.name == "Folder" })
        #expect(insert.value(forKey: "folder") == .objectID(folderInsert.id))
        let tags = try #require(insert.relation(at: slot("tags", of: insert.id)))
        #expect(tags.added.count == 1 && tags.removed.isEmpty)

        let update = try #require(batches[1].updated.first)
        #expect(batches[1].inserted.isEmpty && batches[1].updated.count == 2)   // the note and the tag (inverse)
        #expect(update.id == noteID && update.version == 1)
        #expect(Set(update.changedKeys) == ["title", "tags"])
        #expect(update.oldValue(forKey: "title") == .string("first") && update.value(forKey: "title") == .string("second"))
        let lost = try #require(update.relation(at: slot("tags", of: update.id)))
        #expect(lost.removed == [tagID] && lost.added.isEmpty)
        #expect(update.oldValue(forKey: "tags") == .objectIDs([tagID]))

        let deleted = Set(batches[2].deleted.map(\.id))
        #expect(deleted == [noteID, folderID])
        #expect(batches[2].deleted.first { $0.id == folderID }?.value(forKey: "name") == .string("Inbox"))
        _ = token
    }

    @Test func publishedChangeSetNamesObjectsInsertedBySameSaveByPermanentIDs() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let noteID = try await context.perform { () throws -> ObjectID in
            let note = context.insert(Note.self)
            try context.save()
            return note.objectID
        }
        let received = Received<ChangeSet>()
        let token = context.observeChanges { received.append($0) }
        let folderID = try await context.perform { () throws -> ObjectID in
            let note = try #require(try context.existingObject(with: noteID) as? Note)
            let folder = context.insert(Folder.self)
            note.folder = folder
            try context.save()
            return folder.objectID
        }
        let changes = try #require(received.all.first)
        #expect(!folderID.isTemporary && changes.inserted == [folderID])
        #expect(changes.updated[noteID]?["folder"] == .objectID(folderID))
        #expect(changes.updated[folderID] == nil)
        _ = token
    }

    @Test func childHandsItsBatchToTheParent() async throws {
        let dir = TemporaryDirectory()
        let (_, parent) = try await makeStore(dir)
        let child = ObjectContext(.privateQueue, parent: parent)
        let childBatches = Received<ChangeBatch>(), parentBatches = Received<ChangeBatch>()
        let tokens = [child.observeWillSave { childBatches.append($0) }, parent.observeWillSave { parentBatches.append($0) }]
        let noteID = try await child.perform { () throws -> ObjectID in
            let folder = child.insert(Folder.self)
            let note = child.insert(Note.self)
            note.title = "from child"
            note.folder = folder
            try child.save()
            return note.objectID
        }
        #expect(childBatches.all.count == 1 && parentBatches.all.isEmpty)   // a push writes nothing
        #expect(childBatches.all.first?.inserted.count == 2)
        try await parent.perform {
            let note = try #require(parent.registeredObjects.first { $0.objectID == noteID } as? Note)
            #expect(note.title == "from child" && note.folder != nil && note.isInserted)
            try parent.save()
        }
        let saved = try #require(parentBatches.all.first)
        #expect(saved.inserted.count == 2)
        #expect(saved.inserted.first { $0.id == noteID }?.value(forKey: "title") == .string("from child"))
        _ = tokens
    }

    @Test func coordinatorKeepsNoContextAlive() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        weak var dropped: ObjectContext?
        do {
            let reader = ObjectContext(.privateQueue, coordinator: coordinator)
            reader.automaticallyMergesChangesFromParent = true
            dropped = reader
        }
        #expect(dropped == nil)
        let listener = ObjectContext(.privateQueue, coordinator: coordinator)
        listener.automaticallyMergesChangesFromParent = true
        let merged = Received<ChangeSet>()
        let token = listener.observeChanges { merged.append($0) }
        try await writer.perform { _ = writer.insert(Tag.self); try writer.save() }
        try await listener.perform {}    // the merge was queued on the listener's queue before this
        #expect(merged.all.count == 1 && merged.all.first?.inserted.count == 1)
        _ = token
    }
}

/// The position of relationship `name` in the entity of `id`.
private func slot(_ name: String, of id: ObjectID) -> Int {
    id.entity.relationships.firstIndex { $0.name == name } ?? -1
}

/// A root context merging another root's save keeps nothing of that save's temporary IDs.
@Suite struct ForeignPermanentIDTests {
    @Test func rootIgnoresTemporaryIDsItNeverHeld() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        let main = ObjectContext(.privateQueue, coordinator: coordinator)
        main.automaticallyMergesChangesFromParent = true
        let merged = Received<ChangeSet>()
        let token = main.observeChanges { merged.append($0) }
        let id = try await writer.perform { () throws -> ObjectID in
            let tag = writer.insert(Tag.self)
            try writer.save()
            return tag.objectID
        }
        try await main.perform {}   // the merge was queued before this block
        let changes = try #require(merged.all.first)
        #expect(changes.permanentIDs.count == 1 && changes.inserted == [id])
        let (remembered, fetched) = try await main.perform { (main.registry.rememberedCount, try main.fetch(FetchRequest<Tag>()).map(\.objectID)) }
        #expect(remembered == 0 && fetched == [id])
        _ = token
    }
}

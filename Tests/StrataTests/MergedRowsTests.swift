import Foundation
import GRDB
import Testing
@testable import Strata

/// A store save's change set holds its inserts (`ChangeSet.savedInserts`); a context merging
/// it fills its faults of those objects from the rows they make (`savedSnapshot(of:)`) while it
/// tells its observers, instead of reading SQLite.
@Suite struct MergedRowsTests {
    /// A folder and a note (with a date that changes when it passes through seconds since
    /// 1970, a transformable value and a to-one) saved on one coordinator; the change set.
    private static func saveNote(in context: ObjectContext) async throws -> (note: ObjectID, folder: ObjectID, changes: ChangeSet) {
        let received = Received<ChangeSet>()
        let token = context.observeChanges { received.append($0) }
        defer { token.cancel() }
        let (note, folder) = try await context.perform { () throws -> (ObjectID, ObjectID) in
            let folder = context.insert(Folder.self)
            folder.name = "Inbox"
            let note = context.insert(Note.self)
            note.title = "saved"
            note.created = Date(timeIntervalSinceReferenceDate: 123_456_789.123_456_7)
            note.metadata = ["colour": "blue"]
            note.rating = 4
            note.folder = folder
            try context.save()
            return (note.objectID, folder.objectID)
        }
        let changes = try #require(received.all.first)
        return (note, folder, changes)
    }

    /// The note's title as `context`'s observers see it while `context` merges `changes`.
    private static func titlesSeen(merging changes: ChangeSet, note: ObjectID, in context: ObjectContext) async throws -> [String] {
        let seen = Received<String>()
        let token = context.observeChanges { _ in seen.append((context.object(with: note) as? Note)?.title ?? "") }
        defer { token.cancel() }
        try await context.perform { context.merge(changes) }
        return seen.all
    }

    /// Saves a new folder through `context`: a write of its coordinator.
    private static func saveFolder(_ name: String, in context: ObjectContext) async throws {
        try await context.perform {
            context.insert(Folder.self).name = name
            try context.save()
        }
    }

    @Test func aMergedInsertFillsFromTheSavedRowAsTheStoreHoldsIt() async throws {
        let dir = TemporaryDirectory()
        let (writer, importer) = try await makeStore(dir)
        let (noteID, folderID, changes) = try await Self.saveNote(in: importer)
        #expect(changes.savedSnapshot(of: noteID) != nil && changes.savedSnapshot(of: folderID) != nil)

        // The rows change behind the merge (SQL on the writer's connection, which no change set
        // reports): what the merge's observers read is the saved row, what is read after it is
        // the store's.
        try await writer.database.write { db in
            try db.execute(sql: "UPDATE Note SET title = 'changed behind'")
            try db.execute(sql: "UPDATE Folder SET name = 'changed behind'")
        }

        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui)
        let seen = Received<[PropertyValue]>()
        let token = main.observeChanges { _ in
            let note = main.object(with: noteID)
            seen.append(["title", "created", "metadata", "rating", "folder"].map { note.primitiveValue(forKey: $0) })
        }
        try await main.perform { main.merge(changes) }
        token.cancel()
        let merged = try #require(seen.all.first)
        #expect(merged[0] == .string("saved"))

        // Every value is the one a fetch from the store gives (the date as SQLite returns it).
        let fresh = ObjectContext(.privateQueue, coordinator: ui)
        let stored = try await fresh.perform { () throws -> [PropertyValue] in
            let note = try fresh.existingObject(with: noteID)
            return ["title", "created", "metadata", "rating", "folder"].map { note.primitiveValue(forKey: $0) }
        }
        #expect(Array(merged.dropFirst()) == Array(stored.dropFirst()))
        #expect(merged[4] == .objectID(folderID))

        // After the merge, faults read the store again.
        let folderName = try await main.perform { (main.object(with: folderID) as? Folder)?.name }
        #expect(folderName == "changed behind")
    }

    /// Another process's commit noticed by this process's next write (its `BEGIN` sees the file
    /// changed while no coordinator of this process committed) stops merges from filling
    /// faults from change sets saved before it: the rows they carry may be what that process
    /// rewrote. A plain SQLite connection on the file stands for the other process.
    @Test func anotherProcessesCommitNoticedAtAWriteStopsTheFill() async throws {
        let dir = TemporaryDirectory()
        let (_, importer) = try await makeStore(dir)
        let (noteID, _, changes) = try await Self.saveNote(in: importer)
        let otherProcess = try DatabaseQueue(path: dir.file().path)
        try await otherProcess.write { db in try db.execute(sql: "UPDATE Note SET title = 'rewritten elsewhere'") }
        try otherProcess.close()
        try await Self.saveFolder("Later", in: importer)   // the next write notices the commit

        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui)
        #expect(try await Self.titlesSeen(merging: changes, note: noteID, in: main) == ["rewritten elsewhere"])
    }

    /// A write after another coordinator of this process committed to the file sees the file
    /// changed too, but that commit explains it: merges still fill from the saved inserts.
    @Test func anotherCoordinatorsCommitInThisProcessKeepsTheFill() async throws {
        let dir = TemporaryDirectory()
        let (_, importer) = try await makeStore(dir)
        let (noteID, _, changes) = try await Self.saveNote(in: importer)
        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        try await Self.saveFolder("Elsewhere in this process", in: ObjectContext(.privateQueue, coordinator: ui))
        try await Self.saveFolder("Later", in: importer)

        let main = ObjectContext(.privateQueue, coordinator: ui)
        #expect(try await main.perform { main.mayFillFromSavedInserts(of: changes) })
        #expect(try await Self.titlesSeen(merging: changes, note: noteID, in: main) == ["saved"])
    }

    @Test func aChildWhoseParentHoldsEditsOfTheEntityReadsThroughTheParent() async throws {
        let dir = TemporaryDirectory()
        let (writer, importer) = try await makeStore(dir)
        let (noteID, _, changes) = try await Self.saveNote(in: importer)
        try await writer.database.write { db in try db.execute(sql: "UPDATE Note SET title = 'changed behind'") }

        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let parent = ObjectContext(.privateQueue, coordinator: ui)
        try await parent.perform { _ = parent.insert(Note.self) }   // an unsaved note: the parent's view of notes may differ from the store's
        let child = ObjectContext(.privateQueue, parent: parent)
        #expect(try await Self.titlesSeen(merging: changes, note: noteID, in: child) == ["changed behind"])   // the parent's answer, which is the store's
    }

    @Test func coalescedChangeSetsCarryTheRowWithItsLaterChanges() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let received = Received<ChangeSet>()
        let token = context.observeChanges { received.append($0) }
        let id = try await context.perform { () throws -> ObjectID in
            let note = context.insert(Note.self)
            note.title = "first"
            try context.save()
            note.title = "second"
            try context.save()
            return note.objectID
        }
        let other = try await context.perform { () throws -> ObjectID in
            let note = context.insert(Note.self)
            try context.save()
            context.delete(note)
            try context.save()
            return note.objectID
        }
        token.cancel()
        let sets = received.all
        #expect(sets.count == 4)
        let combined = sets.dropFirst().reduce(sets[0]) { $0.merging($1) }
        let row = try #require(combined.savedSnapshot(of: id))
        let slot = try #require(testModel.entity(named: "Note")?.attributes.firstIndex { $0.name == "title" })
        #expect(row.attributes[slot] == .string("second"))
        #expect(row.version == 2)
        #expect(combined.savedSnapshot(of: other) == nil)   // deleted later: no row
        // A set without commit numbers that updates makes the combination unnumbered.
        #expect(combined.commits != nil)
        #expect(combined.merging(ChangeSet(updated: [id: ["title": .string("third")]])).commits == nil)
        #expect(combined.merging(ChangeSet(inserted: [other])).commits == combined.commits)
    }

    @Test func piecesCarryTheRowsOfTheirInsertsWithTheirUpdates() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let received = Received<ChangeSet>()
        let token = context.observeChanges { received.append($0) }
        let first = try await context.perform { () throws -> ObjectID in
            let notes = (0..<5).map { i in
                let note = context.insert(Note.self)
                note.title = "note \(i)"
                return note
            }
            try context.save()
            notes[0].title = "renamed"
            try context.save()
            return notes[0].objectID
        }
        token.cancel()
        let sets = received.all
        let changes = sets[0].merging(sets[1])
        #expect(changes.inserted.count == 5 && changes.updated[first] != nil)
        let pieces = changes.pieces(of: 2)
        #expect(pieces.count == 3)
        for piece in pieces {
            for id in piece.inserted { #expect(piece.savedSnapshot(of: id) != nil) }
        }
        // The renamed note travels with its update, so its row has the new title.
        let holding = try #require(pieces.first { $0.inserted.contains(first) })
        #expect(holding.updated[first] != nil)
        let slot = try #require(testModel.entity(named: "Note")?.attributes.firstIndex { $0.name == "title" })
        #expect(holding.savedSnapshot(of: first)?.attributes[slot] == .string("renamed"))
        #expect(Set(pieces.flatMap(\.inserted)) == changes.inserted)
        #expect(pieces.reduce(0) { $0 + $1.updated.count } == changes.updated.count)
    }

    @Test func aSaveWithoutInsertsCarriesNoRows() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let received = Received<ChangeSet>()
        let token = context.observeChanges { received.append($0) }
        try await context.perform {
            let note = context.insert(Note.self)
            try context.save()
            note.title = "edited"
            try context.save()
        }
        token.cancel()
        #expect(received.all.map { $0.savedInserts.count } == [1, 0])
    }

    @Test func anInsertThatBecameAStoredRowIsReadFromTheStore() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, first) = try await makeStore(dir)
        try await first.perform {
            let note = first.insert(Note.self)
            note.uniqueIdentifier = "shared"
            note.title = "stored"
            try first.save()
        }
        // Another context inserts the same unique value: store-trump makes its object the row.
        let second = ObjectContext(.privateQueue, coordinator: coordinator, mergePolicy: .mergeByPropertyStoreTrump)
        let received = Received<ChangeSet>()
        let token = second.observeChanges { received.append($0) }
        let id = try await second.perform { () throws -> ObjectID in
            let note = second.insert(Note.self)
            note.uniqueIdentifier = "shared"
            note.title = "inserted"
            try second.save()
            return note.objectID
        }
        token.cancel()
        let changes = try #require(received.all.first)
        #expect(changes.savedSnapshot(of: id) == nil)

        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui)
        let seen = try await Self.titlesSeen(merging: changes, note: id, in: main)
        let fresh = ObjectContext(.privateQueue, coordinator: ui)
        let stored = try await fresh.perform { () throws -> String in try #require(try fresh.existingObject(with: id) as? Note).title }
        #expect(seen == [stored])
    }

    /// What an observer placing new objects against a window (a fetched results controller)
    /// learns while a merge tells it: the range of a numeric key's saved values among the
    /// inserts of an entity, later changes in the set included; nothing when a new object is
    /// held loaded here, for a transformable key, or outside a merge.
    @Test func aMergeTellsItsObserversTheRangeItsInsertsWereSavedWith() async throws {
        let dir = TemporaryDirectory()
        let (_, importer) = try await makeStore(dir)
        let received = Received<ChangeSet>()
        let token = importer.observeChanges { received.append($0) }
        let ids = try await importer.perform { () throws -> [ObjectID] in
            let notes = [7, 3, 9].map { rating in
                let note = importer.insert(Note.self)
                note.rating = Int16(rating)
                return note
            }
            importer.insert(Folder.self).name = "not a note"
            try importer.save()
            notes[2].rating = 1   // the second save: an update of the third note
            try importer.save()
            return notes.map(\.objectID)
        }
        token.cancel()
        let sets = received.all
        #expect(sets.count == 2)
        let combined = sets[0].merging(sets[1])
        let note = try #require(testModel.entity(named: "Note"))

        func range(_ changes: ChangeSet, _ key: String, holding held: ObjectID? = nil) -> [PropertyValue]?? {
            let main = ObjectContext(.privateQueue, coordinator: importer.coordinator)
            let seen = Received<[PropertyValue]?>()
            let observation = main.observeChanges { told in seen.append(main.mergedInsertsRange(of: told, kindOf: note, key: key).map { [$0.least, $0.greatest] }) }
            defer { observation.cancel() }
            return main.performAndWait {
                if let held { _ = (main.object(with: held) as? Note)?.rating }   // loaded here
                main.merge(changes)
                return seen.all.first
            }
        }
        #expect(range(sets[0], "rating") == .some([.integer(3), .integer(9)]))
        #expect(range(combined, "rating") == .some([.integer(1), .integer(9)]))   // the update counts
        #expect(range(sets[0], "title") == .some(nil))                           // not numeric
        #expect(range(sets[0], "metadata") == .some(nil))                        // transformable
        #expect(range(sets[0], "rating", holding: ids[0]) == .some(nil))         // a new object held loaded
        let main = ObjectContext(.privateQueue, coordinator: importer.coordinator)
        #expect(main.performAndWait { main.mergedInsertsRange(of: sets[0], kindOf: note, key: "rating") } == nil)   // outside a merge
    }
}

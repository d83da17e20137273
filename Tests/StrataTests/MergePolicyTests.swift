import Foundation
import GRDB
import Testing
@testable import Strata

/// The same conflict under each policy: the store has title "theirs" and rating 9 (changed
/// by another context); we changed title to "ours" and subtitle to "mine" from a row that
/// read title "original", rating 1, no subtitle.
@Suite struct MergePolicyTests {
    struct Stored: Equatable { var title: String; var rating: Int; var subtitle: String? }

    func conflict(under policy: MergePolicy) async throws -> (saveError: StrataError?, stored: Stored, inMemory: Stored) {
        let dir = TemporaryDirectory()
        let (coordinator, ours) = try await makeStore(dir)
        let id = try await ours.perform { () throws -> ObjectID in
            let note = ours.insert(Note.self); note.title = "original"; note.rating = 1
            try ours.save()
            return note.objectID
        }
        let theirs = ObjectContext(.privateQueue, coordinator: coordinator)
        try await theirs.perform {
            let note = try #require(try theirs.existingObject(with: id) as? Note)
            note.title = "theirs"; note.rating = 9
            try theirs.save()
        }
        let (error, memory) = try await ours.perform { () throws -> (StrataError?, Stored) in
            ours.mergePolicy = policy
            let note = try #require(ours.object(with: id) as? Note)
            note.title = "ours"; note.subtitle = "mine"
            var failure: StrataError?
            do { try ours.save() } catch let error as StrataError { failure = error }
            return (failure, Stored(title: note.title, rating: Int(note.rating), subtitle: note.subtitle))
        }
        let row = try coordinator.database.read { try Row.fetchOne($0, sql: "SELECT title, rating, subtitle FROM Note") }
        let stored = Stored(title: row?["title"] ?? "", rating: row?["rating"] ?? 0, subtitle: row?["subtitle"])
        return (error, stored, memory)
    }

    @Test func errorReportsEveryKeyAndWritesNothing() async throws {
        let result = try await conflict(under: .error)
        let error = try #require(result.saveError)
        #expect(error.code == .conflict)
        let title = try #require(error.conflicts.first { $0.key == "title" })
        #expect(title.originalValue == .string("original") && title.ourValue == .string("ours") && title.storedValue == .string("theirs"))
        #expect(error.conflicts.contains { $0.key == "rating" && $0.storedValue == .integer(9) })
        #expect(result.stored == Stored(title: "theirs", rating: 9, subtitle: nil))
    }

    @Test func storeTrumpKeepsTheirKeysAndWritesOurOthers() async throws {
        let result = try await conflict(under: .mergeByPropertyStoreTrump)
        #expect(result.saveError == nil)
        #expect(result.stored == Stored(title: "theirs", rating: 9, subtitle: "mine"))
        #expect(result.inMemory == result.stored)
    }

    @Test func objectTrumpWritesOurKeysAndKeepsTheirOthers() async throws {
        let result = try await conflict(under: .mergeByPropertyObjectTrump)
        #expect(result.saveError == nil)
        #expect(result.stored == Stored(title: "ours", rating: 9, subtitle: "mine"))
        #expect(result.inMemory == result.stored)
    }

    @Test func overwriteWritesOurWholeObject() async throws {
        let result = try await conflict(under: .overwrite)
        #expect(result.saveError == nil)
        #expect(result.stored == Stored(title: "ours", rating: 1, subtitle: "mine"))
        #expect(result.inMemory == result.stored)
    }

    @Test func rollbackDropsOurChangesForTheStoredRow() async throws {
        let result = try await conflict(under: .rollback)
        #expect(result.saveError == nil)
        #expect(result.stored == Stored(title: "theirs", rating: 9, subtitle: nil))
        #expect(result.inMemory == result.stored)
    }

    @Test(arguments: [MergePolicy.mergeByPropertyObjectTrump, .overwrite, .mergeByPropertyStoreTrump, .rollback])
    func uniqueCollisionBecomesTheExistingRow(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, first) = try await makeStore(dir)
        let existing = try await first.perform { () throws -> ObjectID in
            let note = first.insert(Note.self); note.uniqueIdentifier = "server-42"; note.title = "v1"
            try first.save()
            return note.objectID
        }
        let importer = ObjectContext(.privateQueue, coordinator: coordinator)
        let (id, title) = try await importer.perform { () throws -> (ObjectID, String) in
            importer.mergePolicy = policy
            let note = importer.insert(Note.self); note.uniqueIdentifier = "server-42"; note.title = "v2"
            try importer.save()
            return (note.objectID, note.title)
        }
        #expect(id == existing)                                       // no duplicate: it is the same row
        let rows = try coordinator.database.read { try Row.fetchAll($0, sql: "SELECT title FROM Note") }
        #expect(rows.count == 1)
        let expected = (policy == .mergeByPropertyObjectTrump || policy == .overwrite) ? "v2" : "v1"
        #expect(rows.first?["title"] == expected)
        #expect(title == expected)
    }

    /// After `obtainPermanentIDs(for:)` the object was promised its own row: a collision is a
    /// conflict under every policy, and nothing is written (it kept a permanent ID for a row the
    /// save never wrote under store-trump, and failed under object-trump).
    @Test(arguments: [MergePolicy.mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback])
    func aUniqueCollisionAfterObtainingAPermanentIDIsAConflict(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, first) = try await makeStore(dir)
        try await first.perform {
            let note = first.insert(Note.self); note.uniqueIdentifier = "server-42"; note.title = "v1"
            try first.save()
        }
        let importer = ObjectContext(.privateQueue, coordinator: coordinator)
        let code = try await importer.perform { () -> StrataError.Code? in
            importer.mergePolicy = policy
            let note = importer.insert(Note.self); note.uniqueIdentifier = "server-42"; note.title = "v2"
            do {
                try importer.obtainPermanentIDs(for: [note])
                try importer.save()
                return nil
            } catch {
                return (error as? StrataError)?.code
            }
        }
        #expect(code == .conflict)
        let rows = try coordinator.database.read { try Row.fetchAll($0, sql: "SELECT _id, title FROM Note") }
        #expect(rows.count == 1)
        #expect(rows.first?["title"] == "v1")
    }

    @Test func importByUniqueIdentifierIsIdempotent() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            context.mergePolicy = .mergeByPropertyObjectTrump
            for round in 0..<3 {
                for i in 0..<10 {
                    let note = context.insert(Note.self)
                    note.uniqueIdentifier = "item-\(i)"
                    note.title = "round \(round)"
                }
                try context.save()
                context.reset()
            }
            let notes = try context.fetch(FetchRequest<Note>())
            #expect(notes.count == 10)
            #expect(notes.allSatisfy { $0.title == "round 2" })
        }
    }
}

@Suite struct TwoCoordinatorTests {
    @Test func twoCoordinatorsOnOneFileSeeAndMergeEachOthersSaves() async throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let a = try await StoreCoordinator(model: testModel, store: .sqlite(url))
        let b = try await StoreCoordinator(model: testModel, store: .sqlite(url))
        let writer = ObjectContext(.privateQueue, coordinator: a)
        let reader = ObjectContext(.privateQueue, coordinator: b)
        let id = try await writer.perform { () throws -> ObjectID in
            let note = writer.insert(Note.self); note.title = "from a"
            try writer.save()
            return note.objectID
        }
        let seen = try await reader.perform { () throws -> String? in
            let note = try reader.existingObject(with: id) as? Note
            return note?.title
        }
        #expect(seen == "from a")
        let received = Received<ChangeSet>()
        let token = a.observeSaves { received.append($0) }
        try await writer.perform { (writer.object(with: id) as? Note)?.title = "again"; try writer.save() }
        let changes = try #require(received.all.first)
        _ = token
        try await reader.perform {
            reader.merge(changes)
            #expect((reader.object(with: id) as? Note)?.title == "again")
            (reader.object(with: id) as? Note)?.rating = 3
            try reader.save()                         // merged version: no conflict
        }
    }

    @Test func concurrentWritersOnTwoCoordinatorsNeverSeeBusy() async throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let coordinators = [try await StoreCoordinator(model: testModel, store: .sqlite(url)),
                            try await StoreCoordinator(model: testModel, store: .sqlite(url))]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (n, coordinator) in coordinators.enumerated() {
                group.addTask {
                    let context = ObjectContext(.privateQueue, coordinator: coordinator)
                    for round in 0..<40 {
                        try await context.perform {
                            for i in 0..<25 { context.insert(Note.self).title = "c\(n)-\(round)-\(i)" }
                            try context.save()
                            _ = try context.count(for: FetchRequest<Note>())
                            context.reset()
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let count = try await coordinators[0].database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Note") }
        #expect(count == 2 * 40 * 25)
        let check = try await coordinators[1].database.read { try String.fetchOne($0, sql: "PRAGMA integrity_check") }
        #expect(check == "ok")
    }
}

@Suite struct ConflictReportTests {
    /// A save that resolves a conflict by retrying reports what it wrote, to-one keys included.
    @Test func aRetryUnderObjectTrumpReportsTheForeignKeyItWrote() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, ours) = try await makeStore(dir)
        let (noteID, folderID) = try await ours.perform { () throws -> (ObjectID, ObjectID) in
            let note = ours.insert(Note.self), folder = ours.insert(Folder.self)
            try ours.save()
            return (note.objectID, folder.objectID)
        }
        let theirs = ObjectContext(.privateQueue, coordinator: coordinator)
        try await theirs.perform { (try theirs.existingObject(with: noteID) as? Note)?.title = "theirs"; try theirs.save() }
        let received = Received<ChangeSet>()
        let token = ours.observeChanges { received.append($0) }
        try await ours.perform {
            ours.mergePolicy = .mergeByPropertyObjectTrump
            let note = try #require(ours.object(with: noteID) as? Note)
            note.folder = ours.object(with: folderID) as? Folder
            try ours.save()
        }
        _ = token
        let changes = try #require(received.all.first)
        #expect(changes.updated[noteID]?["folder"] == .objectID(folderID))
        #expect(changes.updated[noteID]?["title"] == .string("theirs"))
    }

    /// A key changed and changed back is not written (nor reported).
    @Test func aRevertedKeyIsNotWritten() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let id = try await context.perform { () throws -> ObjectID in
            let note = context.insert(Note.self); note.title = "same"
            try context.save()
            return note.objectID
        }
        let (_, sql) = try await coordinator.recordingSQL {
            try await context.perform {
                let note = try #require(context.object(with: id) as? Note)
                note.title = "other"; note.title = "same"; note.rating = 2
                try context.save()
            }
        }
        let update = try #require(sql.first { $0.hasPrefix("UPDATE \"Note\"") })
        #expect(!update.contains("\"title\""))
        #expect(update.contains("\"rating\""))
    }
}

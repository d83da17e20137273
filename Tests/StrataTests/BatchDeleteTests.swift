import Foundation
import GRDB
import Testing
@testable import Strata

/// Counts committed transactions that deleted rows of one table.
private final class DeletingCommitCounter: TransactionObserver, Sendable {
    let table: String
    private let state = Locked<(sawDelete: Bool, commits: Int)>((false, 0))
    init(table: String) { self.table = table }
    var commits: Int { state.withLock { $0.commits } }
    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        if case .delete(let name) = eventKind { return name == table }
        return false
    }
    func databaseDidChange(with event: DatabaseEvent) {
        state.withLock { $0.sawDelete = true }
    }
    func databaseDidCommit(_ db: Database) {
        state.withLock { if $0.sawDelete { $0.commits += 1 }; $0.sawDelete = false }
    }
    func databaseDidRollback(_ db: Database) {
        state.withLock { $0.sawDelete = false }
    }
}

@Suite struct BatchDeleteTests {
    func count(_ table: String, _ coordinator: StoreCoordinator, where condition: String = "1") throws -> Int {
        try coordinator.database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\" WHERE \(condition)") ?? -1 }
    }

    func joinTableName(entity: String, relationship: String) throws -> String {
        let storage = try #require(testModel.entity(named: entity)?.relationship(named: relationship)?.storage)
        guard case .joinTable(let join) = storage else {
            Issue.record("\(entity).\(relationship) is not stored in a join table")
            return ""
        }
        return join.name
    }

    @Test func deletesInChunksEachItsOwnTransaction() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let rows: [[String: PropertyValue]] = (0..<2_500).map {
            ["title": .string("n\($0)"), "uniqueIdentifier": .string("u\($0)"), "rating": .integer(Int64($0 % 5))]
        }
        let ids = try coordinator.execute(BatchInsertRequest(entityName: "Note", objects: rows))
        #expect(ids.count == 2_500)
        // Tag a few notes in the first and last chunks, so join rows exist on both ends.
        let tagged = [ids[0], ids[1], ids[2_499]]
        let tagID = try await context.perform { () -> ObjectID in
            let tag = context.insert(Tag.self)
            tag.label = "t"
            for id in tagged {
                let note = try #require(context.existingObject(with: id) as? Note)
                note.tags.insert(tag)
            }
            try context.save()
            return tag.objectID
        }
        let join = try joinTableName(entity: "Note", relationship: "tags")
        #expect(try count(join, coordinator) == 3)

        let counter = DeletingCommitCounter(table: "Note")
        try await coordinator.database.writeWithoutTransaction { db in db.add(transactionObserver: counter) }
        let (changes, sql) = try await coordinator.recordingSQL {
            try coordinator.execute(BatchDeleteRequest(entityName: "Note", chunkSize: 1_000))
        }
        let noteDeletes = sql.filter { $0.hasPrefix("DELETE FROM \"Note\"") }
        #expect(noteDeletes.count == 3)
        #expect(counter.commits == 3)
        // Join rows go in IN lists of at most 500 keys: 2 + 2 + 1 statements.
        let joinDeletes = sql.filter { $0.hasPrefix("DELETE FROM \"\(join)\"") }
        #expect(joinDeletes.count == 5)
        #expect(joinDeletes.allSatisfy { $0.components(separatedBy: "?").count - 1 <= StoreCoordinator.keyChunk })

        #expect(changes.deleted == Set(ids))
        #expect(changes.updated.isEmpty && changes.inserted.isEmpty && changes.versions.isEmpty)
        #expect(try count("Note", coordinator) == 0)
        #expect(try count(join, coordinator) == 0)
        #expect(try count("Tag", coordinator) == 1)   // no cascade to the other side

        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        let tagNotes = try await fresh.perform { () -> Int in
            let tag = try #require(fresh.existingObject(with: tagID) as? Tag)
            return tag.notes.count
        }
        #expect(tagNotes == 0)
    }

    @Test func predicateSelectsRowsAndForeignKeysPointingAtThemAreNullified() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (folderIDs, noteIDs) = try await context.perform { () -> ([String: ObjectID], [String: ObjectID]) in
            let folders = ["A", "B"].map { name -> Folder in let f = context.insert(Folder.self); f.name = name; return f }
            var notes: [Note] = []
            for i in 0..<6 {
                let note = context.insert(Note.self)
                note.title = "n\(i)"
                note.folder = folders[i % 2]
                notes.append(note)
            }
            try context.save()
            return (Dictionary(uniqueKeysWithValues: folders.map { ($0.name, $0.objectID) }),
                    Dictionary(uniqueKeysWithValues: notes.map { ($0.title, $0.objectID) }))
        }
        let folderA = try #require(folderIDs["A"]), folderB = try #require(folderIDs["B"])
        let (changes, sql) = try await coordinator.recordingSQL {
            try coordinator.execute(BatchDeleteRequest(entityName: "Folder", predicate: .key("name") == "A"))
        }
        #expect(changes.deleted == [folderA])
        let inA = Set(["n0", "n2", "n4"].compactMap { noteIDs[$0] })
        #expect(inA.count == 3)
        #expect(Set(changes.updated.keys) == inA)
        for id in inA {
            #expect(changes.updated[id] == ["folder": .null])
            #expect(changes.versions[id] == 2)
        }
        #expect(sql.filter { $0.hasPrefix("UPDATE \"Note\" SET \"folder\" = NULL") }.count == 1)

        // The folder's notes were nullified, not cascaded (Folder.notes is .cascade).
        #expect(try count("Folder", coordinator) == 1)
        #expect(try count("Note", coordinator) == 6)
        #expect(try count("Note", coordinator, where: "folder IS NULL AND _version = 2") == 3)
        #expect(try count("Note", coordinator, where: "folder = \(try #require(folderB.primaryKey)) AND _version = 1") == 3)

        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        let orphans = try await fresh.perform {
            try fresh.fetch(FetchRequest<Note>(predicate: .key("folder") == nil)).map(\.title).sorted()
        }
        #expect(orphans == ["n0", "n2", "n4"])
    }

    @Test func denyIsNotAppliedAndOrderedForeignKeysAreCleared() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (personID, folderID, trackIDs) = try await context.perform { () -> (ObjectID, ObjectID, [ObjectID]) in
            let person = context.insert(Person.self)
            person.name = "p"
            let folder = context.insert(Folder.self)
            folder.owner = person                       // Person.folders is .deny
            let tracks = (0..<3).map { i -> Track in let t = context.insert(Track.self); t.title = "t\(i)"; return t }
            person.playlist = tracks
            try context.save()
            return (person.objectID, folder.objectID, tracks.map(\.objectID))
        }
        let changes = try coordinator.execute(BatchDeleteRequest(entityName: "Person"))
        #expect(changes.deleted == [personID])
        #expect(changes.updated[folderID] == ["owner": .null])
        for id in trackIDs { #expect(changes.updated[id] == ["person": .null]) }
        #expect(changes.updated.count == 4)
        #expect(try count("Person", coordinator) == 0)
        #expect(try count("Folder", coordinator, where: "owner IS NULL") == 1)
        let orderColumn = try #require(testModel.entity(named: "Track")?.relationship(named: "person")?.foreignKeyOrderColumn)
        #expect(try count("Track", coordinator, where: "person IS NULL AND \"\(orderColumn)\" IS NULL") == 3)
    }

    @Test func chunkSizeOneDeletesRowByRow() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, _) = try await makeStore(dir)
        let ids = try coordinator.execute(BatchInsertRequest(entityName: "Folder", objects: [["name": .string("a")], ["name": .string("b")]]))
        let (changes, sql) = try await coordinator.recordingSQL {
            try coordinator.execute(BatchDeleteRequest(entityName: "Folder", chunkSize: 1))
        }
        #expect(sql.filter { $0.hasPrefix("DELETE FROM \"Folder\"") }.count == 2)
        #expect(changes.deleted == Set(ids))
        #expect(changes.updated.isEmpty)
        #expect(try count("Folder", coordinator) == 0)
    }

    @Test func badRequestsThrowAndDeleteNothing() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, _) = try await makeStore(dir)
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Tag", objects: [["label": .string("x")]]))
        let zero = #expect(throws: StrataError.self) { try coordinator.execute(BatchDeleteRequest(entityName: "Tag", chunkSize: 0)) }
        #expect(zero?.code == .invalidRequest)
        #expect(zero?.entity == "Tag")
        let unknown = #expect(throws: StrataError.self) { try coordinator.execute(BatchDeleteRequest(entityName: "Nope")) }
        #expect(unknown?.code == .invalidRequest)
        let badKey = #expect(throws: StrataError.self) {
            try coordinator.execute(BatchDeleteRequest(entityName: "Tag", predicate: .key("missing") == 1))
        }
        #expect(badKey?.code == .malformedPredicate)
        #expect(try count("Tag", coordinator) == 1)
        let none = try coordinator.execute(BatchDeleteRequest(entityName: "Tag", predicate: .key("label") == "y"))
        #expect(none.isEmpty)
        #expect(try count("Tag", coordinator) == 1)
    }

    @Test func contextExecuteAndOtherWritersBetweenChunks() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let rows: [[String: PropertyValue]] = (0..<3_000).map { ["label": .string("t\($0)")] }
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Tag", objects: rows))
        // A writer running alongside the chunked delete succeeds, and its rows (which do not
        // match) survive. This does not prove interleaving; the commit counter test proves
        // one transaction per chunk.
        async let deleted = context.perform {
            try context.execute(BatchDeleteRequest(entityName: "Tag", predicate: .key("label").beginsWith("t"), chunkSize: 100)).deleted.count
        }
        let writer = ObjectContext(.privateQueue, coordinator: coordinator)
        for i in 0..<5 {
            try await writer.perform {
                let tag = writer.insert(Tag.self)
                tag.label = "keep\(i)"
                try writer.save()
            }
        }
        #expect(try await deleted == 3_000)
        #expect(try count("Tag", coordinator) == 5)
    }
}

import Foundation
import GRDB
import Testing
@testable import Strata

@Suite struct BatchUpdateTests {
    /// A store with 10 notes titled n0…n9, ratings i % 5, each saved once (version 1), and
    /// the notes' IDs by title.
    func seeded() async throws -> (TemporaryDirectory, StoreCoordinator, [String: ObjectID]) {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let ids = try await context.perform { () -> [String: ObjectID] in
            let notes = (0..<10).map { i -> Note in
                let note = context.insert(Note.self)
                note.title = "n\(i)"
                note.rating = Int16(i % 5)
                return note
            }
            try context.save()
            return Dictionary(uniqueKeysWithValues: notes.map { ($0.title, $0.objectID) })
        }
        return (dir, coordinator, ids)
    }

    /// (title, rating, subtitle, version) of every note, by primary key.
    func storedNotes(_ coordinator: StoreCoordinator) throws -> [Int64: (title: String, rating: Int64, subtitle: String?, version: Int64)] {
        try coordinator.database.read { db in
            var result: [Int64: (title: String, rating: Int64, subtitle: String?, version: Int64)] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT _id, title, rating, subtitle, _version FROM Note") {
                result[row[0]] = (row[1], row[2], row[3], row[4])
            }
            return result
        }
    }

    @Test func updateWithPredicateReportsValuesAndVersions() async throws {
        let (dir, coordinator, ids) = try await seeded()
        _ = dir
        let request = BatchUpdateRequest(entityName: "Note", predicate: .key("rating") < 2,
                                         propertiesToUpdate: ["rating": .integer(4), "subtitle": .string("low")])
        let (changes, sql) = try await coordinator.recordingSQL { try coordinator.execute(request) }
        let expected = Set(["n0", "n1", "n5", "n6"].compactMap { ids[$0] })
        #expect(expected.count == 4)
        #expect(Set(changes.updated.keys) == expected)
        #expect(changes.inserted.isEmpty && changes.deleted.isEmpty)
        for id in expected {
            #expect(changes.updated[id] == ["rating": .integer(4), "subtitle": .string("low")])
            #expect(changes.versions[id] == 2)
        }
        #expect(Set(changes.versions.keys) == expected)
        #expect(sql.filter { $0.hasPrefix("UPDATE") }.count == 1)

        let stored = try storedNotes(coordinator)
        #expect(stored.count == 10)
        for (title, id) in ids {
            let key = try #require(id.primaryKey)
            let row = try #require(stored[key])
            #expect(row.title == title)
            if expected.contains(id) {
                #expect(row.rating == 4 && row.subtitle == "low" && row.version == 2)
            } else {
                #expect(row.rating < 5 && row.rating >= 2 && row.subtitle == nil && row.version == 1)
            }
        }

        // A fresh context sees the new values.
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        let lowCount = try await fresh.perform { try fresh.fetch(FetchRequest<Note>(predicate: .key("subtitle") == "low")).count }
        #expect(lowCount == 4)
    }

    @Test func updateWithoutPredicateTouchesEveryRowAndBumpsVersionsEachTime() async throws {
        let (dir, coordinator, ids) = try await seeded()
        _ = dir
        let first = try coordinator.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["rating": .integer(7)]))
        #expect(Set(first.updated.keys) == Set(ids.values))
        #expect(first.versions.values.allSatisfy { $0 == 2 })
        let second = try coordinator.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["title": .string("same")]))
        #expect(second.updated.count == 10)
        #expect(second.versions.values.allSatisfy { $0 == 3 })
        #expect(second.updated.values.allSatisfy { $0 == ["title": .string("same")] })
        let stored = try storedNotes(coordinator)
        #expect(stored.values.allSatisfy { $0.title == "same" && $0.rating == 7 && $0.version == 3 })
    }

    @Test func noMatchingRowsIsAnEmptyChangeSet() async throws {
        let (dir, coordinator, _) = try await seeded()
        _ = dir
        let changes = try coordinator.execute(BatchUpdateRequest(entityName: "Note", predicate: .key("rating") > 100,
                                                                 propertiesToUpdate: ["rating": .integer(1)]))
        #expect(changes.isEmpty)
        #expect(try storedNotes(coordinator).values.allSatisfy { $0.version == 1 })
    }

    @Test func badRequestsThrowTypedErrorsAndWriteNothing() async throws {
        let (dir, coordinator, _) = try await seeded()
        _ = dir
        let cases: [([String: PropertyValue], StrataError.Code, String?)] = [
            (["rating": .integer(1), "nope": .integer(1)], .invalidRequest, "nope"),
            (["rating": .string("high")], .invalidRequest, "rating"),
            (["rating": .integer(70_000)], .unencodableValue, "rating"),     // does not fit Int16: as in a save and a batch insert
            (["title": .integer(3)], .invalidRequest, "title"),
            (["rating": .integer(1), "title": .null], .validation, "title"),  // required
            (["tags": .objectIDs([])], .invalidRequest, "tags"),             // to-many
            (["title": .objectID(ObjectID(entity: try #require(testModel.entity(named: "Folder")), key: 1))], .invalidRequest, "title"),
            ([:], .invalidRequest, nil),
        ]
        for (values, code, key) in cases {
            let error = #expect(throws: StrataError.self) {
                try coordinator.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: values))
            }
            #expect(error?.code == code, "\(values)")
            #expect(error?.key == key, "\(values)")
            #expect(error?.entity == "Note")
        }
        let unknownEntity = #expect(throws: StrataError.self) {
            try coordinator.execute(BatchUpdateRequest(entityName: "Nope", propertiesToUpdate: ["a": .integer(1)]))
        }
        #expect(unknownEntity?.code == .invalidRequest)
        let badPredicate = #expect(throws: StrataError.self) {
            try coordinator.execute(BatchUpdateRequest(entityName: "Note", predicate: .key("missing") == 1, propertiesToUpdate: ["rating": .integer(1)]))
        }
        #expect(badPredicate?.code == .malformedPredicate)
        let stored = try storedNotes(coordinator)
        #expect(stored.values.allSatisfy { $0.version == 1 && $0.subtitle == nil && $0.title.hasPrefix("n") })
    }

    @Test func uniqueCollisionIsAConflictAndWritesNothing() async throws {
        let (dir, coordinator, _) = try await seeded()
        _ = dir
        let request = BatchUpdateRequest(entityName: "Note", predicate: .key("rating") == 1,
                                         propertiesToUpdate: ["subtitle": .string("x"), "uniqueIdentifier": .string("same")])
        let error = #expect(throws: StrataError.self) { try coordinator.execute(request) }
        #expect(error?.code == .conflict)
        #expect(error?.key == "uniqueIdentifier")
        #expect(error?.entity == "Note")
        let stored = try storedNotes(coordinator)
        #expect(stored.values.allSatisfy { $0.version == 1 && $0.subtitle == nil })

        // One matching row cannot collide with itself: that update goes through.
        let single = try coordinator.execute(BatchUpdateRequest(entityName: "Note", predicate: .key("title") == "n1",
                                                                propertiesToUpdate: ["uniqueIdentifier": .string("same")]))
        #expect(single.updated.count == 1)
    }

    @Test func toOneForeignKeysCanBeSetAndAreChecked() async throws {
        let (dir, coordinator, ids) = try await seeded()
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let (folderID, personID) = try await context.perform { () -> (ObjectID, ObjectID) in
            let folder = context.insert(Folder.self)
            folder.name = "Inbox"
            let person = context.insert(Person.self)
            try context.save()
            return (folder.objectID, person.objectID)
        }
        let changes = try coordinator.execute(BatchUpdateRequest(entityName: "Note", predicate: .key("rating") == 3,
                                                                 propertiesToUpdate: ["folder": .objectID(folderID)]))
        #expect(changes.updated.count == 2)
        #expect(changes.updated.values.allSatisfy { $0 == ["folder": .objectID(folderID)] })

        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        let inInbox = try await fresh.perform {
            try fresh.fetch(FetchRequest<Note>(predicate: .key("folder.name") == "Inbox")).map(\.title).sorted()
        }
        #expect(inInbox == ["n3", "n8"])

        let folderEntity = try #require(testModel.entity(named: "Folder"))
        let bad: [(PropertyValue, StrataError.Code)] = [
            (.objectID(personID), .invalidRequest),                                    // wrong entity
            (.objectID(ObjectID(entity: folderEntity, key: 999)), .objectNotFound),    // no such row
            (.objectID(ObjectID(entity: folderEntity, key: 1, isTemporary: true)), .invalidRequest),
            (.string("Inbox"), .invalidRequest),
        ]
        for (value, code) in bad {
            let error = #expect(throws: StrataError.self) {
                try coordinator.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["folder": value, "subtitle": .string("x")]))
            }
            #expect(error?.code == code, "\(value)")
            #expect(error?.key == "folder")
        }
        // Inverse side (Folder.notes lives in Note's table) and ordered inverses are refused.
        let inverse = #expect(throws: StrataError.self) {
            try coordinator.execute(BatchUpdateRequest(entityName: "Folder", propertiesToUpdate: ["notes": .objectIDs([])]))
        }
        #expect(inverse?.code == .invalidRequest)
        let ordered = #expect(throws: StrataError.self) {
            try coordinator.execute(BatchUpdateRequest(entityName: "Track", propertiesToUpdate: ["person": .objectID(personID)]))
        }
        #expect(ordered?.code == .invalidRequest)
        #expect(ordered?.key == "person")
        let stored = try storedNotes(coordinator)
        #expect(stored.values.allSatisfy { $0.subtitle == nil })
        let n3 = try #require(ids["n3"]?.primaryKey)
        #expect(stored[n3]?.version == 2)
    }

    @Test func contextExecuteBypassesTheContextsObjects() async throws {
        let (dir, coordinator, ids) = try await seeded()
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let n2 = try #require(ids["n2"])
        let (before, changes, after) = try await context.perform { () -> (String, ChangeSet, String) in
            let note = try #require(context.existingObject(with: n2) as? Note)
            let before = note.title
            let changes = try context.execute(BatchUpdateRequest(entityName: "Note", predicate: .key("title") == "n2",
                                                                 propertiesToUpdate: ["title": .string("renamed")]))
            let stale = note.title
            context.refresh(note, mergeChanges: false)
            return (before + "|" + stale, changes, note.title)
        }
        #expect(before == "n2|n2")
        #expect(changes.updated[n2] == ["title": .string("renamed")])
        #expect(after == "renamed")
    }
}

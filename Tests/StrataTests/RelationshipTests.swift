import Foundation
import Testing
@testable import Strata

@Suite struct RelationshipTests {
    @Test func inversesFollowEveryWrite() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let a = context.insert(Folder.self), b = context.insert(Folder.self)
            let note = context.insert(Note.self)
            note.folder = a
            #expect(a.notes == [note])
            note.folder = b
            #expect(a.notes.isEmpty)
            #expect(b.notes == [note])
            b.notes = []
            #expect(note.folder == nil)
            a.notes = [note]
            #expect(note.folder === a)
            let red = context.insert(Tag.self), blue = context.insert(Tag.self)
            note.tags = [red, blue]
            #expect(red.notes == [note] && blue.notes == [note])
            red.notes = []
            #expect(note.tags == [blue])
        }
    }

    @Test func manyToManyAndOrderedPersist() async throws {
        let dir = TemporaryDirectory()
        do {
            let (_, context) = try await makeStore(dir)
            try await context.perform {
                let note = context.insert(Note.self)
                note.title = "n"
                let tags = (0..<3).map { i -> Tag in let t = context.insert(Tag.self); t.label = "t\(i)"; return t }
                note.tags = Set(tags)
                let person = context.insert(Person.self)
                let tracks = (0..<4).map { i -> Track in let t = context.insert(Track.self); t.title = "track\(i)"; return t }
                person.playlist = [tracks[2], tracks[0], tracks[3], tracks[1]]
                try context.save()
                note.tags.remove(tags[0])   // a to-many edit through the typed property
                person.playlist = [tracks[3], tracks[2], tracks[1]]
                try context.save()
            }
        }
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let note = try #require(try context.fetch(FetchRequest<Note>()).first)
            #expect(Set(note.tags.map(\.label)) == ["t1", "t2"])
            let person = try #require(try context.fetch(FetchRequest<Person>()).first)
            #expect(person.playlist.map(\.title) == ["track3", "track2", "track1"])
            let orphan = try context.fetch(FetchRequest<Track>()).first { $0.title == "track0" }
            #expect(orphan?.person == nil)
        }
    }

    @Test func cascadeDeletesDestinations() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let folder = context.insert(Folder.self)
            for _ in 0..<3 { context.insert(Note.self).folder = folder }
            try context.save()
            context.delete(folder)
            #expect(context.deletedObjects.count == 4)
            try context.save()
            #expect(try context.count(for: FetchRequest<Note>()) == 0)
            #expect(try context.count(for: FetchRequest<Folder>()) == 0)
        }
    }

    @Test func nullifyClearsInverseAndPersists() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let person = context.insert(Person.self)
            let track = context.insert(Track.self)
            person.playlist = [track]
            try context.save()
            context.delete(track)          // Track.person is .nullify
            #expect(person.playlist.isEmpty)
            try context.save()
            context.reset()
            let again = try #require(try context.fetch(FetchRequest<Person>()).first)
            #expect(again.playlist.isEmpty)
        }
    }

    @Test func denyRefusesAndWritesNothing() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let person = context.insert(Person.self)
            let folder = context.insert(Folder.self)
            folder.owner = person
            try context.save()
            context.delete(person)         // Person.folders is .deny
            do { try context.save(); Issue.record("deny ignored") }
            catch let error as StrataError { #expect(error.code == .deleteDenied); #expect(error.key == "folders") }
            context.rollback()
            #expect(try context.count(for: FetchRequest<Person>()) == 1)
            context.delete(folder)
            context.delete(person)
            try context.save()
            #expect(try context.count(for: FetchRequest<Person>()) == 0)
        }
    }

    @Test func noActionLeavesDestinationsAlone() async throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Parent", attributes: [AttributeDescription("name", type: .string)],
                              relationships: [RelationshipDescription("kids", destination: "Kid", inverse: "parent", isToMany: true, deleteRule: .noAction)]),
            EntityDescription("Kid", attributes: [AttributeDescription("name", type: .string)],
                              relationships: [RelationshipDescription("parent", destination: "Parent", inverse: "kids")]),
        ])
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let parent = try context.insert(entityNamed: "Parent")
            let kid = try context.insert(entityNamed: "Kid")
            try kid.setValue(parent, forKey: "parent")
            try context.save()
            context.delete(parent)
            #expect(kid.value(forKey: "parent") as? ManagedObject === parent)   // untouched
            try context.save()
            let kids = try context.fetchDictionaries(FetchRequest<ManagedObject>(entityName: "Kid"))
            #expect(kids.count == 1)
        }
    }
}

@Suite struct ReferentialIntegrityTests {
    /// Under `.noAction` the deleting save still clears references left in the store, and an
    /// object written in the same save keeps the row's latest version (no false conflict later).
    @Test func noActionDeleteClearsReferencesAndKeepsVersionsRight() async throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Parent", attributes: [AttributeDescription("name", type: .string)],
                              relationships: [RelationshipDescription("kids", destination: "Kid", inverse: "parent", isToMany: true, deleteRule: .noAction)]),
            EntityDescription("Kid", attributes: [AttributeDescription("name", type: .string)],
                              relationships: [RelationshipDescription("parent", destination: "Parent", inverse: "kids")]),
        ])
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let received = Received<ChangeSet>()
        let token = context.observeChanges { received.append($0) }
        try await context.perform {
            let parent = try context.insert(entityNamed: "Parent")
            let kid = try context.insert(entityNamed: "Kid")
            try kid.setValue(parent, forKey: "parent")
            try context.save()
            try kid.setValue("renamed", forKey: "name")     // written in the same save…
            context.delete(parent)                            // …as the delete that clears its reference
            try context.save()
            #expect(kid.value(forKey: "parent") == nil)
            try kid.setValue("again", forKey: "name")
            try context.save()                                // no false conflict: the version is the row's
        }
        _ = token
        let stored = try await coordinator.database.read { try Int64.fetchOne($0, sql: "SELECT parent FROM Kid") }
        #expect(stored == nil)
        let second = try #require(received.all.dropFirst().first)
        #expect(second.updated.values.contains { $0["parent"] == .null })
    }

    /// A save relating objects to a row another context deleted meanwhile is a conflict, and
    /// nothing dangling is written.
    @Test func relatingToARowDeletedElsewhereIsAConflict() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, first) = try await makeStore(dir)
        let folderID = try await first.perform { () throws -> ObjectID in
            let folder = first.insert(Folder.self)
            try first.save()
            return folder.objectID
        }
        let second = ObjectContext(.privateQueue, coordinator: coordinator)
        try await second.perform { _ = try second.existingObject(with: folderID) }
        try await first.perform { first.delete(first.object(with: folderID)); try first.save() }
        try await second.perform {
            let note = second.insert(Note.self)
            note.folder = second.object(with: folderID) as? Folder
            do { try second.save(); Issue.record("saved a dangling reference") }
            catch let error as StrataError { #expect(error.code == .conflict) }
        }
        let notes = try await coordinator.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Note") }
        #expect(notes == 0)
    }
}

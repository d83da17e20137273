import Foundation
import Testing
@testable import Strata

/// `value(forKeyPath:)` follows relationships as Core Data's does (seed 000 reads key paths).
@Suite struct KeyPathValueTests {
    @Test func keyPathsFollowToOnesAndToManys() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let owner = context.insert(Person.self); owner.name = "Ada"
            let folder = context.insert(Folder.self); folder.name = "Inbox"; folder.owner = owner
            for title in ["a", "b", "c"] { let note = context.insert(Note.self); note.title = title; note.uniqueIdentifier = title; note.folder = folder }
            let loose = context.insert(Note.self); loose.title = "loose"; loose.uniqueIdentifier = "loose"
            try context.save()
            let note = try #require(folder.notes.first)

            #expect(note.value(forKeyPath: "title") as? String == note.title)
            #expect(note.value(forKeyPath: "folder.name") as? String == "Inbox")
            #expect(note.value(forKeyPath: "folder.owner.name") as? String == "Ada")
            #expect(loose.value(forKeyPath: "folder.owner.name") == nil)          // through a nil to-one
            #expect(note.value(forKeyPath: "folder.nope") == nil)                 // unknown key
            #expect(note.value(forKeyPath: "folder") as? Folder === folder)
            let titles = try #require(folder.value(forKeyPath: "notes.title") as? [Any])
            #expect(Set(titles.compactMap { $0 as? String }) == ["a", "b", "c"])
            #expect(folder.value(forKeyPath: "notes.@count") as? Int == 3)
            #expect(owner.value(forKeyPath: "folders.notes.@count") as? Int == 3)   // flattened through two to-manys
            let nested = try #require(owner.value(forKeyPath: "folders.notes.title") as? [Any])
            #expect(nested.count == 3)
            #expect(loose.value(forKeyPath: "folder.notes.@count") as? Int == 0)
        }
    }

    @Test func orderedToManyKeepsItsOrder() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let person = context.insert(Person.self)
            person.playlist = ["z", "a", "m"].map { title in let track = context.insert(Track.self); track.title = title; return track }
            #expect((person.value(forKeyPath: "playlist.title") as? [Any])?.compactMap { $0 as? String } == ["z", "a", "m"])
        }
    }
}

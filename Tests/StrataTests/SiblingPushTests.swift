import Foundation
import Testing
@testable import Strata

/// Two children of one parent change the same to-many, each from its own loaded view: the
/// second push applies its own additions and removals and keeps what the first one did.
@Suite struct SiblingPushTests {
    /// A root with a folder holding `initial` notes (and a person with as many tracks), and two
    /// children that have both read the folder's notes and the person's playlist.
    private func twoSiblings(initial: Int) async throws -> (TemporaryDirectory, StoreCoordinator, ObjectContext, ObjectContext, ObjectContext) {
        let dir = TemporaryDirectory()
        let (coordinator, root) = try await makeStore(dir)
        try await root.perform {
            let folder = root.insert(Folder.self); folder.name = "F"
            let person = root.insert(Person.self); person.name = "P"
            for i in 0..<initial {
                let note = root.insert(Note.self); note.title = "old\(i)"; note.uniqueIdentifier = "old\(i)"; note.folder = folder
                let track = root.insert(Track.self); track.title = "old\(i)"; track.person = person
            }
            try root.save()
        }
        let first = ObjectContext(.privateQueue, parent: root, name: "first")
        let second = ObjectContext(.privateQueue, parent: root, name: "second")
        for child in [first, second] {
            try await child.perform {
                _ = try #require(try child.fetch(FetchRequest<Folder>()).first).notes.count
                _ = try #require(try child.fetch(FetchRequest<Person>()).first).playlist.count
            }
        }
        return (dir, coordinator, root, first, second)
    }

    private func stored(_ coordinator: StoreCoordinator) async throws -> (notes: [String], tracks: [String]) {
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        return try await reader.perform {
            let notes = try reader.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")])).map { "\($0.title):\($0.folder?.name ?? "nil")" }
            let tracks = try #require(try reader.fetch(FetchRequest<Person>()).first).playlist.map(\.title)
            return (notes, tracks)
        }
    }

    @Test func siblingsAddingToOneToManyKeepEachOthersMembers() async throws {
        let (dir, coordinator, root, first, second) = try await twoSiblings(initial: 0)
        _ = dir
        for (index, child) in [first, second].enumerated() {
            try await child.perform {
                let folder = try #require(try child.fetch(FetchRequest<Folder>()).first)
                let note = child.insert(Note.self); note.title = "n\(index)"; note.uniqueIdentifier = "n\(index)"
                folder.notes.insert(note)
                let person = try #require(try child.fetch(FetchRequest<Person>()).first)
                let track = child.insert(Track.self); track.title = "t\(index)"
                person.playlist.append(track)
                try child.save()
            }
        }
        try await root.perform { try root.save() }
        let (notes, tracks) = try await stored(coordinator)
        #expect(notes == ["n0:F", "n1:F"])
        #expect(tracks == ["t1", "t0"])   // ordered: the later push's order, then what the parent gained meanwhile
    }

    /// The parent reports a to-many a push changed as it holds it afterwards: the second
    /// push names only its own member, and the parent's report has both.
    @Test func theParentReportsTheMembersItHoldsAfterAPush() async throws {
        let (dir, _, root, first, second) = try await twoSiblings(initial: 0)
        _ = dir
        let reports = Locked<[ChangeSet]>([])
        let observation = root.observeChanges { changes in reports.withLock { $0.append(changes) } }
        defer { observation.cancel() }
        for (index, child) in [first, second].enumerated() {
            try await child.perform {
                let folder = try #require(try child.fetch(FetchRequest<Folder>()).first)
                let note = child.insert(Note.self); note.title = "n\(index)"; note.uniqueIdentifier = "n\(index)"
                folder.notes.insert(note)
                try child.save()
            }
        }
        let folderID = try await root.perform { try #require(try root.fetch(FetchRequest<Folder>()).first).objectID }
        let last = try #require(reports.withLock { $0.last })
        guard case .objectIDs(let members)? = last.updated[folderID]?["notes"] else {
            Issue.record("the second push's report names no notes of the folder: \(last.updated)")
            return
        }
        #expect(members.count == 2)
    }

    @Test func aSiblingsRemovalIsNotUndoneByAStaleView() async throws {
        let (dir, coordinator, root, first, second) = try await twoSiblings(initial: 2)
        _ = dir
        try await first.perform {
            let folder = try #require(try first.fetch(FetchRequest<Folder>()).first)
            folder.notes = folder.notes.filter { $0.title != "old0" }
            let person = try #require(try first.fetch(FetchRequest<Person>()).first)
            person.playlist.removeAll { $0.title == "old0" }
            try first.save()
        }
        try await second.perform {
            let folder = try #require(try second.fetch(FetchRequest<Folder>()).first)
            let note = second.insert(Note.self); note.title = "new"; note.uniqueIdentifier = "new"
            folder.notes.insert(note)
            let person = try #require(try second.fetch(FetchRequest<Person>()).first)
            let track = second.insert(Track.self); track.title = "new"
            person.playlist.append(track)
            try second.save()
        }
        try await root.perform { try root.save() }
        let (notes, tracks) = try await stored(coordinator)
        #expect(notes == ["new:F", "old0:nil", "old1:F"])
        #expect(tracks == ["old1", "new"])
    }
}

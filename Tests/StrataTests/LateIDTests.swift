import Dispatch
import Foundation
import Testing
@testable import Strata

/// A child context that works on while the permanent IDs of its own earlier inserts are still
/// on their way down from the root: it must not end up with two instances of one object, and
/// what it pushes later must not drop the relationships of what it pushed before.
@Suite struct LateIDTests {
    @Test func aChildWorkingBeforeItLearnsPermanentIDsKeepsOneInstanceAndEveryRelationship() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, root) = try await makeStore(dir)
        let middle = ObjectContext(.privateQueue, parent: root, name: "middle")
        let leaf = ObjectContext(.privateQueue, parent: middle, name: "leaf")
        // The leaf inserts a folder (its to-many is loaded, empty) and pushes it down.
        try await leaf.perform { leaf.insert(Folder.self).name = "F"; try leaf.save() }
        try await middle.perform { try middle.save() }
        // Hold the middle queue while the root saves, so the folder's permanent ID is still on
        // its way to the leaf when the leaf fetches it and files two notes in it.
        let gate = DispatchSemaphore(value: 0), holding = DispatchSemaphore(value: 0), leafStarted = DispatchSemaphore(value: 0)
        let hold = Task { try await middle.perform { holding.signal(); gate.wait() } }
        await Task.detached { holding.wait() }.value
        try await root.perform { try root.save() }
        let early = Task {
            try await leaf.perform { () throws -> Int in
                leafStarted.signal()
                let folders = try leaf.fetch(FetchRequest<Folder>())
                let folder = try #require(folders.first)
                for i in 0..<2 { let note = leaf.insert(Note.self); note.title = "early\(i)"; note.uniqueIdentifier = "e\(i)"; note.folder = folder }
                try leaf.save()
                return leaf.registeredObjects.filter { $0 is Folder }.count
            }
        }
        await Task.detached { leafStarted.wait() }.value
        gate.signal()
        try await hold.value
        #expect(try await early.value == 1, "the leaf holds the folder twice")
        try await middle.perform {}
        try await leaf.perform {}
        // A later round files one more note in the same folder.
        let members = try await leaf.perform { () throws -> [String] in
            let folder = try #require(try leaf.fetch(FetchRequest<Folder>()).first)
            let note = leaf.insert(Note.self); note.title = "late"; note.uniqueIdentifier = "l"; note.folder = folder
            try leaf.save()
            return folder.notes.map(\.title).sorted()
        }
        #expect(members == ["early0", "early1", "late"])
        try await middle.perform { try middle.save() }
        try await root.perform { try root.save() }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let stored = try await reader.perform {
            try reader.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")])).map { "\($0.title):\($0.folder?.name ?? "nil")" }
        }
        #expect(stored == ["early0:F", "early1:F", "late:F"])
    }
}

import Foundation
import Testing
@testable import Strata

/// What a context remembers of temporary IDs that became permanent: enough for its own objects
/// and its children, not one entry per object another context ever saved (a million-object
/// import made the importer and a main context following it each hold a million-entry map).
@Suite struct PermanentIDMemoryTests {
    @Test func aResetImporterWithoutChildrenForgetsItsSavedTemporaryIDs() async throws {
        let dir = TemporaryDirectory()
        let (_, importer) = try await makeStore(dir)
        let remembered = try await importer.perform { () throws -> (Int, Int) in
            for i in 0..<20 { let note = importer.insert(Note.self); note.title = "n\(i)"; note.uniqueIdentifier = "u\(i)" }
            try importer.save()
            let afterSave = importer.registry.rememberedCount
            importer.reset()
            return (afterSave, importer.registry.rememberedCount)
        }
        #expect(remembered.0 == 20, "the saved objects' mappings are kept until the reset")
        #expect(remembered.1 == 0)
    }

    @Test func aResetParentKeepsTheTemporaryIDsItsLiveChildMayName() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeStore(dir)
        let child = ObjectContext(.privateQueue, parent: root, name: "child")
        let kept = try await root.perform { () throws -> Int in
            root.insert(Note.self).uniqueIdentifier = "a"
            try root.save()
            root.reset()
            return root.registry.rememberedCount
        }
        #expect(kept == 1)
        withExtendedLifetime(child) {}
    }

    @Test func aChildFollowingAnotherCoordinatorsImportRemembersNoneOfItsIDs() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        let main = ObjectContext(.privateQueue, parent: writer, name: "main")
        main.automaticallyMergesChangesFromParent = true
        let importCoordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file("store.sqlite")))
        let importer = ObjectContext(.privateQueue, coordinator: importCoordinator, name: "import")
        // Main holds one object of its own, saved through the writer, so its map has one entry.
        try await main.perform { main.insert(Note.self).uniqueIdentifier = "own"; try main.save() }
        try await writer.perform { try writer.save() }
        let saved = Locked<[ChangeSet]>([])
        let token = importer.observeChanges { changes in saved.withLock { $0.append(changes) } }
        try await importer.perform {
            for i in 0..<30 { let note = importer.insert(Note.self); note.title = "n\(i)"; note.uniqueIdentifier = "i\(i)" }
            try importer.save()
            importer.reset()
        }
        let changes = saved.withLock { $0 }
        #expect(changes.contains { $0.permanentIDs.count == 30 })
        for change in changes { try await writer.perform { writer.merge(change) } }
        for change in changes { try await main.perform { main.merge(change) } }
        let (remembered, fetched) = try await main.perform { () throws -> (Int, Int) in
            let notes = try main.fetch(FetchRequest<Note>())
            return (main.registry.rememberedCount, notes.count)
        }
        #expect(fetched == 31)
        #expect(remembered == 1, "main remembered \(remembered) mappings; only its own object's is needed")
        withExtendedLifetime((token, coordinator)) {}
    }
}

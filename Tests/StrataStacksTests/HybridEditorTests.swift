import Foundation
import Strata
import StrataStacks
import Testing

/// The hybrid stack's editors are root contexts on its import coordinator: a commit writes on
/// the editor's queue, main merges it afterwards, auto-updating editors follow saves through
/// either coordinator, and a row changed underneath a plain editor is a conflict.
@Suite struct HybridEditorTests {
    private func stackWithItem() async throws -> (StoreFile, any CoreStack, ObjectID) {
        let file = StoreFile()
        let stack = try await Stacks.open(.hybrid, model: stackModel, storeURL: file.url)
        let main = stack.mainContext
        try await main.perform { let item = main.insert(Item.self); item.uid = "a"; item.title = "v1" }
        try await stack.save()
        let id = try await main.perform { () throws -> ObjectID in try #require(try main.fetch(FetchRequest<Item>()).first).objectID }
        return (file, stack, id)
    }

    @Test func autoUpdatingEditorFollowsSavesThroughMainAndKeepsItsEdits() async throws {
        let (file, stack, id) = try await stackWithItem()
        let editor = stack.newEditorContext(autoUpdating: true)
        try await editor.perform {
            let item = try #require(try editor.existingObject(with: id) as? Item)
            #expect(item.title == "v1")
            item.rank = 7                               // unsaved, another key
        }
        let main = stack.mainContext
        try await main.perform { (main.object(with: id) as? Item)?.title = "v2" }
        try await stack.save()                           // through the writer, main's coordinator
        try await eventually("the editor to follow main's save") {
            try await editor.perform { (editor.object(with: id) as? Item)?.title == "v2" }
        }
        #expect(try await editor.perform { (editor.object(with: id) as? Item)?.rank } == 7)
        try await editor.perform { try editor.save() }
        #expect(try await storedTitles(file)["a"] == "v2")
        try await eventually("main to merge the editor's rank") {
            try await main.perform { (main.object(with: id) as? Item)?.rank == 7 }
        }
    }

    @Test func aRowChangedUnderAPlainEditorIsAConflictAndNothingIsLost() async throws {
        let (file, stack, id) = try await stackWithItem()
        let editor = stack.newEditorContext(autoUpdating: false)
        try await editor.perform { _ = (try editor.existingObject(with: id) as? Item)?.title }
        let importer = stack.newImportContext()
        try await importer.perform {
            (try importer.existingObject(with: id) as? Item)?.title = "from import"
            try importer.save()
        }
        let error = await #expect(throws: StrataError.self) {
            try await editor.perform {
                (editor.object(with: id) as? Item)?.title = "from editor"
                try editor.save()
            }
        }
        #expect(error?.code == .conflict)
        #expect(try await storedTitles(file)["a"] == "from import")
        #expect(try await editor.perform { (editor.object(with: id) as? Item)?.title } == "from editor")   // kept for the user to resolve
    }
}

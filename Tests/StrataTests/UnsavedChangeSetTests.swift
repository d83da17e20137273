import Foundation
import Testing
@testable import Strata

/// `processPendingChanges()` reports unsaved edits; forwarding that report into another
/// context's `merge(_:)` must not put the edits there, while a save's change set does.
@Suite struct UnsavedChangeSetTests {
    @Test func mergeIgnoresAReportOfUnsavedEdits() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, editor) = try await makeStore(dir)
        let id = try await editor.perform { () throws -> ObjectID in
            let note = editor.insert(Note.self); note.title = "saved"; note.uniqueIdentifier = "n"
            try editor.save()
            return note.objectID
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform { () throws in #expect((try reader.existingObject(with: id) as? Note)?.title == "saved") }
        let received = Locked<[ChangeSet]>([])
        let token = editor.observeChanges { changes in received.withLock { $0.append(changes) } }
        try await editor.perform {
            (editor.object(with: id) as? Note)?.title = "draft"
            editor.processPendingChanges()
        }
        let report = try #require(received.withLock { $0.last })
        #expect(report.isUnsaved)
        #expect(report.updated[id]?["title"] == .string("draft"))
        try await reader.perform {
            reader.merge(report)
            #expect((reader.object(with: id) as? Note)?.title == "saved")   // not leaked
        }
        try await editor.perform { try editor.save() }
        let saved = try #require(received.withLock { $0.last(where: { !$0.isUnsaved && !$0.isEmpty }) })
        #expect(!saved.isUnsaved)
        try await reader.perform {
            reader.merge(saved)
            #expect((reader.object(with: id) as? Note)?.title == "draft")
        }
        #expect(report.merging(saved).isUnsaved)   // a mix still holds unsaved values
        withExtendedLifetime(token) {}
    }
}

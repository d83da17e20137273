import Foundation
import Testing
@testable import Strata

/// The registry counts its objects by entity, so a merge can skip walking every registered
/// object when none could hold a to-many it would reload (`invalidateToMany`).
@Suite struct ObjectRegistryCountTests {
    /// Inserting, saving (temporary → permanent), turning into faults, deleting and resetting
    /// keep the counts in step with what is registered.
    @Test func theCountsFollowWhatIsRegistered() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let folderEntity = try #require(testModel.entity(named: "Folder")).index
        let noteEntity = try #require(testModel.entity(named: "Note")).index
        try await context.perform {
            #expect(!context.registry.holds(entityAt: folderEntity) && !context.registry.holds(entityAt: noteEntity))
            let note = context.insert(Note.self)
            note.title = "a note"
            #expect(context.registry.holds(entityAt: noteEntity) && !context.registry.holds(entityAt: folderEntity))
            let folder = context.insert(Folder.self)
            folder.name = "a folder"
            try context.save()   // both re-filed under permanent IDs
            #expect(context.registry.holds(entityAt: noteEntity) && context.registry.holds(entityAt: folderEntity))
            context.delete(folder)
            try context.save()
            #expect(!context.registry.holds(entityAt: folderEntity) && context.registry.holds(entityAt: noteEntity))
            context.reset()
            #expect(!context.registry.holds(entityAt: noteEntity))
        }
        try coordinator.close()
    }

    /// A merge that brings a new note still shows it in a held folder's loaded `notes` (the
    /// registry says a folder is held). That a merge reloads such to-manys at all is checked by
    /// `AdoptedOrderedMembersTests.aMergingContextReadsTheSameOrder`, which fails when the
    /// registry says no owner is held.
    @Test func aMergeShowsANewMemberInAHeldObjectsToMany() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        let folderID = try await writer.perform {
            let folder = writer.insert(Folder.self)
            folder.name = "inbox"
            try writer.save()
            return folder.objectID
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let folder = try #require(try reader.existingObject(with: folderID) as? Folder)
            #expect(folder.notes.isEmpty)
        }
        let received = Received<ChangeSet>()
        let token = writer.observeChanges { received.append($0) }
        try await writer.perform {
            let folder = try #require(try writer.existingObject(with: folderID) as? Folder)
            let note = writer.insert(Note.self)
            note.title = "new"
            note.folder = folder
            try writer.save()
        }
        _ = token
        let changes = try #require(received.all.last)
        try await reader.perform {
            reader.merge(changes)
            let folder = try #require(try reader.existingObject(with: folderID) as? Folder)
            #expect(folder.notes.map(\.title) == ["new"])
        }
        try coordinator.close()
    }
}

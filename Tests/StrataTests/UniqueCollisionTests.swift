import Foundation
import Testing
@testable import Strata

/// A unique-constraint collision names the stored object that holds the value, as Core Data's
/// constraint conflicts do; an update's collision is a conflict under every policy.
@Suite struct UniqueCollisionTests {
    @Test(arguments: [MergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback])
    func anUpdateCollisionNamesTheHolderUnderEveryPolicy(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        context.mergePolicy = policy
        let (holder, mover) = try await context.perform { () throws -> (ObjectID, ObjectID) in
            let a = context.insert(Note.self); a.uniqueIdentifier = "a"
            let b = context.insert(Note.self); b.uniqueIdentifier = "b"
            try context.save()
            return (a.objectID, b.objectID)
        }
        try await context.perform {
            (context.object(with: mover) as? Note)?.uniqueIdentifier = "a"
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .conflict)
            let conflict = try #require(error?.conflicts.first)
            #expect(error?.conflicts.count == 1)
            #expect(conflict.objectID == mover)
            #expect(conflict.conflictingObjectID == holder)
            #expect(conflict.key == "uniqueIdentifier")
            #expect(conflict.originalValue == .string("b"))
            #expect(conflict.ourValue == .string("a"))
            #expect((context.object(with: mover) as? Note)?.uniqueIdentifier == "a")   // kept for the user to resolve
        }
        let stored = try await coordinator.database.read { try String.fetchAll($0, sql: "SELECT uniqueIdentifier FROM Note ORDER BY _id") }
        #expect(stored == ["a", "b"])
    }

    @Test func anInsertCollisionUnderErrorNamesTheHolder() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        let holder = try await context.perform { () throws -> ObjectID in
            let a = context.insert(Note.self); a.uniqueIdentifier = "same"
            try context.save()
            return a.objectID
        }
        let other = ObjectContext(.privateQueue, coordinator: context.coordinator)
        try await other.perform {
            let note = other.insert(Note.self); note.uniqueIdentifier = "same"
            let error = #expect(throws: StrataError.self) { try other.save() }
            #expect(error?.code == .conflict)
            #expect(error?.conflicts.map(\.conflictingObjectID) == [holder])
            #expect(error?.conflicts.first?.objectID == note.objectID)
        }
    }
}

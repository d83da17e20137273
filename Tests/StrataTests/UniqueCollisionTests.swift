import Foundation
import GRDB
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

    /// A save that frees a unique value (the holder takes another value, or is deleted) and
    /// inserts an object with it writes both: the insert waits for the save's updates and
    /// deletes. Before, the insert met the value first and was a conflict, or under
    /// store-trump became the row being freed.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump], [false, true])
    func aValueFreedInTheSameSaveCanBeTakenByAnInsert(policy: MergePolicy, deletesTheHolder: Bool) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        context.mergePolicy = policy
        let holder = try await context.perform { () throws -> ObjectID in
            let a = context.insert(Note.self); a.uniqueIdentifier = "x"; a.title = "holder"
            try context.save()
            return a.objectID
        }
        let (newID, holderID) = try await context.perform { () throws -> (ObjectID, ObjectID) in
            let held = try #require(context.object(with: holder) as? Note)
            if deletesTheHolder { context.delete(held) } else { held.uniqueIdentifier = "y" }
            let note = context.insert(Note.self); note.uniqueIdentifier = "x"; note.title = "new"
            try context.save()
            return (note.objectID, held.objectID)
        }
        #expect(newID != holderID)
        let stored = try coordinator.database.read { try Row.fetchAll($0, sql: "SELECT uniqueIdentifier, title FROM Note ORDER BY _id") }
        let expected: [[String]] = deletesTheHolder ? [["x", "new"]] : [["y", "holder"], ["x", "new"]]
        #expect(stored.map { [$0["uniqueIdentifier"] as String, $0["title"] as String] } == expected)
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

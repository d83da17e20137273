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

    /// Two inserts of one save with the same unique value are two objects: under every policy
    /// the save is a conflict naming both (before, under a merge policy the second became the
    /// first's row and the context held two objects with one ID). With a stored holder, the
    /// first insert becomes that row (under a merge policy) and the second is the conflict.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyStoreTrump, .mergeByPropertyObjectTrump, .overwrite, .rollback], [false, true])
    func twoInsertsOfOneSaveWithOneValueAreAConflict(policy: MergePolicy, storedHolder: Bool) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let holder: ObjectID? = try await context.perform {
            guard storedHolder else { return nil }
            let held = context.insert(Note.self); held.uniqueIdentifier = "x"; held.title = "stored"
            try context.save()
            return held.objectID
        }
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        other.mergePolicy = policy
        try await other.perform {
            let first = other.insert(Note.self); first.uniqueIdentifier = "x"; first.title = "first"
            let second = other.insert(Note.self); second.uniqueIdentifier = "x"; second.title = "second"
            let error = #expect(throws: StrataError.self) { try other.save() }
            #expect(error?.code == .conflict)
            #expect(first.objectID.isTemporary && second.objectID.isTemporary)   // nothing was saved
            let conflict = try #require(error?.conflicts.first)
            #expect(error?.conflicts.count == 1)
            #expect(conflict.key == "uniqueIdentifier")
            switch (storedHolder, policy) {
            case (true, .error):   // the first insert meets the stored row
                #expect(conflict.objectID == first.objectID)
                #expect(conflict.conflictingObjectID == holder)
            default:   // the second meets the row the first wrote or became: named by the first
                #expect(conflict.objectID == second.objectID)
                #expect(conflict.conflictingObjectID == first.objectID)
            }
            // Resolved by the user: the second goes, and the save succeeds with one object
            // (under `.error`, the stored row still holds the value).
            other.delete(second)
            if storedHolder && policy == .error { return }
            try other.save()
            #expect(first.objectID == holder ?? first.objectID)
            #expect(!first.objectID.isTemporary)
        }
        let stored = try await coordinator.database.read { try String.fetchAll($0, sql: "SELECT title FROM Note") }
        let expected = storedHolder && [.error, .mergeByPropertyStoreTrump, .rollback].contains(policy) ? ["stored"] : ["first"]
        #expect(stored == expected)
    }

    /// The first insert's ID was made permanent before the save (`obtainPermanentIDs`, as
    /// sync's merge does): a second insert with its unique value meets the row the first wrote,
    /// which the context holds under that ID, so it cannot become it under any policy; the
    /// conflict names the first by that permanent ID.
    @Test(arguments: [MergePolicy.error, .mergeByPropertyObjectTrump, .rollback])
    func anInsertMeetingThePermanentRowOfAnotherInsertIsAConflict(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        context.mergePolicy = policy
        try await context.perform {
            let first = context.insert(Note.self); first.uniqueIdentifier = "x"; first.title = "first"
            try context.obtainPermanentIDs(for: [first])
            let second = context.insert(Note.self); second.uniqueIdentifier = "x"; second.title = "second"
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .conflict)
            #expect(error?.conflicts.count == 1)
            #expect(error?.conflicts.first?.objectID == second.objectID)
            #expect(error?.conflicts.first?.conflictingObjectID == first.objectID)
            #expect(first.objectID.isTemporary == false && second.objectID.isTemporary)
        }
        #expect(try await coordinator.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM Note") } == 0)
    }
}

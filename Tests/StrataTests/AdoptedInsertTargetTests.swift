import Foundation
import GRDB
import Testing
@testable import Strata

/// An owner with a unique code, and its pets.
final class UniqueOwner: ManagedObject {
    @Attribute("code", .unique) var code = ""
    @Relationship("pets", inverse: "owner") var pets: Set<OwnedPet>
}

/// A pet, stored with its owner's key.
final class OwnedPet: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("owner", inverse: "pets") var owner: UniqueOwner?
}

/// A known engine bug (found 2026-11-26, not fixed): an insert whose to-one points at another
/// insert of the same save that becomes an existing row (a unique collision that the merge
/// policy settles by adopting the stored row) is written with the key the other insert was
/// reserved, not the adopted row's, so the commit's foreign-key check fails and the whole save
/// is reported as a `.conflict` ("related to an object that was deleted"); nothing is written.
/// Core Data relates the pet to the stored owner. This test records the failure as a known
/// issue: when the bug is fixed it fails, and the `withKnownIssue` should go.
@Suite struct AdoptedInsertTargetTests {
    @Test(arguments: [MergePolicy.mergeByPropertyStoreTrump, .rollback])
    func anInsertPointingAtAnInsertThatBecomesAStoredRow(policy: MergePolicy) async throws {
        let model = try ObjectModel(UniqueOwner.self, OwnedPet.self)
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let first = ObjectContext(.privateQueue, coordinator: coordinator)
        let stored = try await first.perform { () throws -> Int64 in
            let owner = first.insert(UniqueOwner.self)
            owner.code = "A"
            try first.save()
            return try #require(owner.objectID.primaryKey)
        }
        let second = ObjectContext(.privateQueue, coordinator: coordinator, mergePolicy: policy)
        let error = try await second.perform { () -> StrataError? in
            let pet = second.insert(OwnedPet.self)   // inserted before its owner, so written first
            pet.name = "rex"
            let owner = second.insert(UniqueOwner.self)
            owner.code = "A"
            pet.owner = owner
            do { try second.save(); return nil } catch let error as StrataError { return error } catch { return nil }
        }
        let owners = try await coordinator.database.read { db in try Int64.fetchAll(db, sql: "SELECT owner FROM OwnedPet") }
        withKnownIssue("an insert pointing at an insert that adopts a stored row fails the save") {
            #expect(error == nil)
            #expect(owners == [stored])
        }
        #expect(error == nil || error?.code == .conflict)   // today: a typed conflict, nothing written
        #expect(error == nil || owners.isEmpty)
    }
}

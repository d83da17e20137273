import Foundation
import GRDB
import Testing
@testable import Strata

/// An owner with a unique code, its pets (ordered), its home and its clubs.
final class UniqueOwner: ManagedObject {
    @Attribute("code", .unique) var code = ""
    @Relationship("pets", inverse: "owner") var pets: [OwnedPet]
    @Relationship("home", inverse: "owners") var home: OwnerHome?
    @Relationship("clubs", inverse: "members") var clubs: Set<OwnerClub>
}

/// A pet, stored with its owner's key.
final class OwnedPet: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("owner", inverse: "pets") var owner: UniqueOwner?
}

/// A home with a unique address: an owner's to-one that may itself become a stored row.
final class OwnerHome: ManagedObject {
    @Attribute("address", .unique) var address = ""
    @Relationship("owners", inverse: "home") var owners: Set<UniqueOwner>
}

/// A club whose members (an ordered many-to-many) are owners.
final class OwnerClub: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("members", inverse: "clubs") var members: [UniqueOwner]
}

/// Objects of one save that point at an insert which becomes a stored row (a unique collision
/// the merge policy settles by adopting the row) are related to that row, as in Core Data: in
/// the store (to-one columns of inserts and updates, join tables, positions), in the context
/// and in the change set. Before the fix, a foreign key written before the adoption kept the
/// key the insert had been reserved, and the commit failed as a misleading `.conflict`.
@Suite struct AdoptedInsertTargetTests {
    /// Every policy under which an insert that collides becomes the stored row.
    static let adoptingPolicies: [MergePolicy] = [.mergeByPropertyStoreTrump, .rollback, .mergeByPropertyObjectTrump, .overwrite]

    /// A store holding owner "A" (no home) and home "H" (no owners).
    struct Stored {
        let coordinator: StoreCoordinator
        let owner: ObjectID
        let home: ObjectID
        var ownerKey: Int64 { owner.key }
        var homeKey: Int64 { home.key }
    }

    static func makeStored(_ dir: TemporaryDirectory, recordsHistory: Bool = false) async throws -> Stored {
        let model = try ObjectModel(UniqueOwner.self, OwnedPet.self, OwnerHome.self, OwnerClub.self)
        var options = StoreOptions()
        options.recordsHistory = recordsHistory
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file(), options: options))
        let first = ObjectContext(.privateQueue, coordinator: coordinator)
        let (owner, home) = try await first.perform { () throws -> (ObjectID, ObjectID) in
            let owner = first.insert(UniqueOwner.self)
            owner.code = "A"
            let home = first.insert(OwnerHome.self)
            home.address = "H"
            try first.save()
            return (owner.objectID, home.objectID)
        }
        return Stored(coordinator: coordinator, owner: owner, home: home)
    }

    @Test(arguments: adoptingPolicies)
    func anInsertPointingAtAnInsertThatBecomesAStoredRow(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        try await second.perform {
            let pet = second.insert(OwnedPet.self)   // inserted before its owner, so written first
            pet.name = "rex"
            let owner = second.insert(UniqueOwner.self)
            owner.code = "A"
            pet.owner = owner
            try second.save()
        }
        let (owners, ownerCount) = try await stored.coordinator.database.read { db in
            (try Int64.fetchAll(db, sql: "SELECT owner FROM OwnedPet"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM UniqueOwner"))
        }
        #expect(owners == [stored.ownerKey])
        #expect(ownerCount == 1)
    }

    /// An update makes the colliding insert wait until it is written: the update's foreign key
    /// is written with the reserved key, then set to the adopted row's. When the update itself
    /// conflicts (another context renamed the pet), the policy's retry writes it and the pet
    /// takes its row as it then stands, naming the stored owner (under `.rollback` the retry
    /// writes nothing: the pet keeps the stored row, without an owner).
    @Test(arguments: adoptingPolicies, [false, true])
    func anUpdatePointingAtAnInsertThatBecomesAStoredRow(policy: MergePolicy, conflicting: Bool) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let petID = try await second.perform { () throws -> ObjectID in
            let pet = second.insert(OwnedPet.self)
            pet.name = "rex"
            try second.save()
            return pet.objectID
        }
        if conflicting {
            let other = ObjectContext(.privateQueue, coordinator: stored.coordinator)
            try await other.perform {
                (try other.existingObject(with: petID) as? OwnedPet)?.name = "max"
                try other.save()
            }
        }
        let expected: ObjectID? = conflicting && policy == .rollback ? nil : stored.owner
        let received = Received<ChangeSet>()
        let token = second.observeChanges { received.append($0) }
        try await second.perform {
            let pet = try #require(second.object(with: petID) as? OwnedPet)
            let owner = second.insert(UniqueOwner.self)
            owner.code = "A"
            pet.owner = owner
            try second.save()
            #expect(owner.objectID == stored.owner)
            #expect(pet.owner?.objectID == expected)
        }
        _ = token
        let owners = try await stored.coordinator.database.read { db in try Int64?.fetchAll(db, sql: "SELECT owner FROM OwnedPet") }
        #expect(owners == [expected?.key])
        let changes = try #require(received.all.last)
        #expect(changes.updated[petID]?["owner"] == expected.map(PropertyValue.objectID) ?? .null)
    }

    /// Join tables and positions are written once every insert's key is settled: the member is
    /// the stored row, at its position, in the same save as a pet's foreign key to it. (The
    /// join row alone was right before the fix; the pet made the save fail.)
    @Test(arguments: adoptingPolicies)
    func aManyToManyMemberThatBecomesAStoredRow(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let clubID = try await second.perform { () throws -> ObjectID in
            let club = second.insert(OwnerClub.self)
            club.name = "runners"
            let pet = second.insert(OwnedPet.self)
            let owner = second.insert(UniqueOwner.self)
            owner.code = "A"
            club.members = [owner]
            pet.owner = owner
            try second.save()
            #expect(club.members.map(\.objectID) == [stored.owner])
            return club.objectID
        }
        let members = try stored.coordinator.database.read { db in
            try Row.fetchAll(db, sql: "SELECT source, target, source_order FROM _join_OwnerClub_members")
        }
        #expect(members.map { [$0["source"] as Int64, $0["target"] as Int64, $0["source_order"] as Int64] }
                == [[clubID.key, stored.ownerKey, 0]])
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let club = try #require(try reader.existingObject(with: clubID) as? OwnerClub)
            #expect(club.members.map(\.objectID) == [stored.owner])
        }
    }

    /// In memory the pet's owner is the one object of the stored row, which lists the pet.
    @Test(arguments: adoptingPolicies)
    func theContextRelatesThePetToTheStoredRow(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let petID = try await second.perform { () throws -> ObjectID in
            let pet = second.insert(OwnedPet.self)
            pet.name = "rex"
            let owner = second.insert(UniqueOwner.self)
            owner.code = "A"
            pet.owner = owner
            try second.save()
            #expect(owner.objectID == stored.owner)
            #expect(pet.owner === owner)
            #expect(pet.owner?.objectID == stored.owner)
            #expect(second.object(with: stored.owner) === owner)
            #expect(second.registeredObjects.filter { $0 is UniqueOwner }.count == 1)
            #expect(owner.pets.map(\.objectID) == [pet.objectID])
            #expect(!pet.objectID.isTemporary && !pet.hasChanges && !owner.hasChanges)
            return pet.objectID
        }
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let owner = try #require(try reader.existingObject(with: stored.owner) as? UniqueOwner)
            #expect(owner.pets.map(\.objectID) == [petID])
            #expect(owner.pets.first?.name == "rex")
        }
    }

    /// The change set names the stored row: the owner's temporary ID maps to it, and it is
    /// listed as inserted with the pet (the rule for an insert that becomes a stored row). A
    /// context holding the stored owner, its pets read, learns of the pet by merging it.
    @Test(arguments: adoptingPolicies)
    func theChangeSetNamesTheStoredRow(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let owner = try #require(try reader.existingObject(with: stored.owner) as? UniqueOwner)
            #expect(owner.pets.isEmpty)
        }
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let received = Received<ChangeSet>()
        let token = second.observeChanges { received.append($0) }
        let (temporary, petID) = try await second.perform { () throws -> (ObjectID, ObjectID) in
            let pet = second.insert(OwnedPet.self)
            let owner = second.insert(UniqueOwner.self)
            owner.code = "A"
            pet.owner = owner
            let temporary = owner.objectID
            try second.save()
            return (temporary, pet.objectID)
        }
        _ = token
        let changes = try #require(received.all.last)
        #expect(changes.permanentIDs[temporary] == stored.owner)
        #expect(changes.inserted == [petID, stored.owner])
        #expect(changes.deleted.isEmpty)
        try await reader.perform {
            reader.merge(changes)
            let owner = try #require(try reader.existingObject(with: stored.owner) as? UniqueOwner)
            #expect(owner.pets.map(\.objectID) == [petID])
        }
    }

    /// A chain: the pet's owner becomes a stored row, and so does the owner's home. Where the
    /// policy writes our values over the owner's row, its home is the stored home; where it
    /// takes the row as it is, the row keeps its own (none).
    @Test(arguments: adoptingPolicies)
    func aChainOfInsertsThatBecomeStoredRows(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let writesOurs = policy == .mergeByPropertyObjectTrump || policy == .overwrite
        try await second.perform {
            let pet = second.insert(OwnedPet.self)
            let owner = second.insert(UniqueOwner.self)
            owner.code = "A"
            let home = second.insert(OwnerHome.self)   // written after the owner's row
            home.address = "H"
            pet.owner = owner
            owner.home = home
            try second.save()
            #expect(home.objectID == stored.home)
            #expect(owner.home?.objectID == (writesOurs ? stored.home : nil))
        }
        let (pets, homes, counts) = try await stored.coordinator.database.read { db in
            (try Int64.fetchAll(db, sql: "SELECT owner FROM OwnedPet"),
             try Int64?.fetchAll(db, sql: "SELECT home FROM UniqueOwner"),
             try Int.fetchAll(db, sql: "SELECT (SELECT COUNT(*) FROM UniqueOwner) + (SELECT COUNT(*) FROM OwnerHome)"))
        }
        #expect(pets == [stored.ownerKey])
        #expect(homes == [writesOurs ? stored.homeKey : nil])
        #expect(counts == [2])
    }

    /// The history records the pet's insert, the owner as an update of the stored row, and the
    /// club's member by the stored row's key.
    @Test(arguments: adoptingPolicies)
    func theHistoryNamesTheStoredRow(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir, recordsHistory: true)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let (petID, clubID) = try await second.perform { () throws -> (ObjectID, ObjectID) in
            let pet = second.insert(OwnedPet.self)
            let club = second.insert(OwnerClub.self)
            let owner = second.insert(UniqueOwner.self)
            owner.code = "A"
            pet.owner = owner
            club.members = [owner]
            try second.save()
            return (pet.objectID, club.objectID)
        }
        let history = try stored.coordinator.history(after: nil)
        let changes = try #require(history.last?.changes)
        #expect(history.count == 2)
        #expect(changes.first { $0.objectID == petID }?.operation == .insert)
        #expect(changes.first { $0.objectID == stored.owner }?.operation == .update)
        #expect(changes.first { $0.objectID == clubID }?.addedMembers["members"] == [stored.owner])
        #expect(changes.count == 3)
    }
}

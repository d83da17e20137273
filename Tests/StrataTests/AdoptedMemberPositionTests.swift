import Foundation
import GRDB
import Testing
@testable import Strata

/// A keeper of pets (an ordered one-to-many stored in the pets' `owner` and `_order_owner`).
final class PetKeeper: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("pets", inverse: "owner") var pets: [TaggedPet]
}

/// A pet with a unique tag: an insert that meets a stored tag may become the stored pet.
final class TaggedPet: ManagedObject {
    @Attribute("tag", .unique) var tag = ""
    @Relationship("owner", inverse: "pets") var owner: PetKeeper?
}

/// A group whose members (an ordered many-to-many, positions in the join table) have a unique tag.
final class TaggedGroup: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("members", inverse: "groups") var members: [TaggedMember]
}

/// A member of any number of groups, with a unique tag.
final class TaggedMember: ManagedObject {
    @Attribute("tag", .unique) var tag = ""
    @Relationship("groups", inverse: "members") var groups: Set<TaggedGroup>
}

/// An insert that becomes a stored row (a unique collision the merge policy settles by adopting
/// the row) as the MEMBER of an ordered to-many. Under store-trump and rollback the row keeps
/// its stored owner (its to-one is the store's): the new owner's list does not claim it, in the
/// store or in the saving context, and the stored owner keeps its order. Under object-trump
/// and overwrite the row takes the insert's owner, at the position the insert's list gives;
/// the old owner's remaining positions stay distinct and increasing. Before the fix, under
/// store-trump and rollback the new owner's list wrote its position into the stored pet's
/// `_order_owner`, reordering the stored owner's pets. A many-to-many's positions are keyed by
/// owner and member, so the member joins the new group there without touching the old one's.
@Suite struct AdoptedMemberPositionTests {
    /// Policies that write our to-one over the adopted row (the others take the row as it is).
    static func movesThePet(_ policy: MergePolicy) -> Bool { policy == .mergeByPropertyObjectTrump || policy == .overwrite }

    /// A store holding keeper "A" with pets ["x", "a2", "a3"], keeper "B" with pets ["b1"],
    /// and group "G" with members ["x", "g2"].
    struct Stored {
        let coordinator: StoreCoordinator
        let keeperA: ObjectID
        let keeperB: ObjectID
        let group: ObjectID
    }

    static func makeStored(_ dir: TemporaryDirectory) async throws -> Stored {
        let model = try ObjectModel(PetKeeper.self, TaggedPet.self, TaggedGroup.self, TaggedMember.self)
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let first = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await first.perform { () throws -> [ObjectID] in
            func keeper(_ name: String, _ tags: [String]) -> PetKeeper {
                let keeper = first.insert(PetKeeper.self)
                keeper.name = name
                keeper.pets = tags.map { tag in
                    let pet = first.insert(TaggedPet.self)
                    pet.tag = tag
                    return pet
                }
                return keeper
            }
            let a = keeper("A", ["x", "a2", "a3"])
            let b = keeper("B", ["b1"])
            let group = first.insert(TaggedGroup.self)
            group.name = "G"
            group.members = ["x", "g2"].map { tag in
                let member = first.insert(TaggedMember.self)
                member.tag = tag
                return member
            }
            try first.save()
            return [a.objectID, b.objectID, group.objectID]
        }
        return Stored(coordinator: coordinator, keeperA: ids[0], keeperB: ids[1], group: ids[2])
    }

    /// The stored pets of a keeper by position, with their positions.
    static func storedPets(of keeper: ObjectID, _ coordinator: StoreCoordinator) throws -> (tags: [String], positions: [Int64]) {
        let rows = try coordinator.database.read { db in
            try Row.fetchAll(db, sql: "SELECT tag, _order_owner FROM TaggedPet WHERE owner = ? ORDER BY _order_owner, _id", arguments: [keeper.key])
        }
        return (rows.map { $0["tag"] }, rows.map { $0["_order_owner"] })
    }

    static func isStrictlyIncreasing(_ positions: [Int64]) -> Bool {
        zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 }
    }

    /// What every context should read after the save: A's and the saving keeper's pets.
    static func expectedPets(policy: MergePolicy, keeperPets: [String]) -> (a: [String], keeper: [String]) {
        movesThePet(policy) ? (["a2", "a3"], keeperPets) : (["x", "a2", "a3"], keeperPets.filter { $0 != "x" })
    }

    /// Checks the store and a fresh context: A's and the keeper's pets, their positions, and
    /// the pet's owner.
    static func checkStore(_ stored: Stored, keeper: ObjectID, expected: (a: [String], keeper: [String]), policy: MergePolicy) async throws {
        let a = try storedPets(of: stored.keeperA, stored.coordinator)
        #expect(a.tags == expected.a)
        #expect(isStrictlyIncreasing(a.positions))
        let k = try storedPets(of: keeper, stored.coordinator)
        #expect(k.tags == expected.keeper)
        #expect(isStrictlyIncreasing(k.positions))
        let owners = try await stored.coordinator.database.read { db in
            try Int64?.fetchAll(db, sql: "SELECT owner FROM TaggedPet WHERE tag = 'x'")
        }
        #expect(owners == [movesThePet(policy) ? keeper.key : stored.keeperA.key])
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let readA = try #require(try reader.existingObject(with: stored.keeperA) as? PetKeeper)
            #expect(readA.pets.map(\.tag) == expected.a)
            let readKeeper = try #require(try reader.existingObject(with: keeper) as? PetKeeper)
            #expect(readKeeper.pets.map(\.tag) == expected.keeper)
        }
    }

    /// A new keeper lists a new pet tagged "x" between two others: the stored "x" (A's first
    /// pet) becomes it.
    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func aNewKeepersPetThatBecomesAStoredPet(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let listed = ["n1", "x", "n2"]
        let expected = Self.expectedPets(policy: policy, keeperPets: listed)
        let keeperID = try await second.perform { () throws -> ObjectID in
            let pets = listed.map { tag in
                let pet = second.insert(TaggedPet.self)
                pet.tag = tag
                return pet
            }
            let keeper = second.insert(PetKeeper.self)
            keeper.name = "C"
            keeper.pets = pets
            try second.save()
            let x = pets[1]
            #expect(!x.objectID.isTemporary)
            #expect(x.owner?.objectID == (Self.movesThePet(policy) ? keeper.objectID : stored.keeperA))
            #expect(keeper.pets.map(\.tag) == expected.keeper)
            #expect(!keeper.hasChanges && !x.hasChanges)
            return keeper.objectID
        }
        try await Self.checkStore(stored, keeper: keeperID, expected: expected, policy: policy)
    }

    /// The stored keeper B (its pets read) gets a new pet tagged "x" after its own (position 1,
    /// which A's "x" must not take): an update that renumbers B's list.
    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func aStoredKeepersPetThatBecomesAStoredPet(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let expected = Self.expectedPets(policy: policy, keeperPets: ["b1", "x"])
        try await second.perform {
            let keeper = try #require(try second.existingObject(with: stored.keeperB) as? PetKeeper)
            let x = second.insert(TaggedPet.self)
            x.tag = "x"
            keeper.pets.append(x)
            try second.save()
            #expect(x.owner?.objectID == (Self.movesThePet(policy) ? stored.keeperB : stored.keeperA))
            #expect(keeper.pets.map(\.tag) == expected.keeper)
        }
        try await Self.checkStore(stored, keeper: stored.keeperB, expected: expected, policy: policy)
    }

    /// The saving context holds keeper A (its pets unread, so the stored "x" is not one of its
    /// objects and can be adopted): after the save A's pets read as the store has them.
    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func theStoredKeeperHeldByTheSavingContext(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let expected = Self.expectedPets(policy: policy, keeperPets: ["b1", "x"])
        try await second.perform {
            let a = try #require(try second.existingObject(with: stored.keeperA) as? PetKeeper)
            let keeper = try #require(try second.existingObject(with: stored.keeperB) as? PetKeeper)
            let x = second.insert(TaggedPet.self)
            x.tag = "x"
            keeper.pets.append(x)
            try second.save()
            #expect(a.pets.map(\.tag) == expected.a)
            #expect(keeper.pets.map(\.tag) == expected.keeper)
            #expect(x.owner === (Self.movesThePet(policy) ? keeper : a))
        }
        try await Self.checkStore(stored, keeper: stored.keeperB, expected: expected, policy: policy)
    }

    /// A context holding both keepers with their pets read follows the save's change set under
    /// store-trump and rollback (nothing moves).
    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func aMergingContextReadsTheSamePets(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let a = try #require(try reader.existingObject(with: stored.keeperA) as? PetKeeper)
            let b = try #require(try reader.existingObject(with: stored.keeperB) as? PetKeeper)
            #expect(a.pets.map(\.tag) == ["x", "a2", "a3"] && b.pets.map(\.tag) == ["b1"])
        }
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let received = Received<ChangeSet>()
        let token = second.observeChanges { received.append($0) }
        try await second.perform {
            let keeper = try #require(try second.existingObject(with: stored.keeperB) as? PetKeeper)
            let x = second.insert(TaggedPet.self)
            x.tag = "x"
            keeper.pets.append(x)
            try second.save()
        }
        _ = token
        let changes = try #require(received.all.last)
        let expected = Self.expectedPets(policy: policy, keeperPets: ["b1", "x"])
        // Read on the context's queue, checked here: an expectation recorded on another thread
        // is not attributed to this test.
        let (aPets, bPets) = try await reader.perform { () throws -> ([String], [String]) in
            reader.merge(changes)
            let a = try #require(try reader.existingObject(with: stored.keeperA) as? PetKeeper)
            let b = try #require(try reader.existingObject(with: stored.keeperB) as? PetKeeper)
            return (a.pets.map(\.tag), b.pets.map(\.tag))
        }
        // Known gap (left alone): under object-trump and overwrite the change set lists the
        // pet as inserted, so a context holding the stored pet does not move it to B.
        withKnownIssue("a merged adopted insert does not move a held row to its new owner") {
            #expect(aPets == expected.a)
            #expect(bPets == expected.keeper)
        } when: { Self.movesThePet(policy) }
    }

    /// The many-to-many variant: a new group lists a new member tagged "x". The member joins the
    /// new group at the position its list gives (a to-many is not a column of the row: every
    /// adopting policy adds it) and keeps its position in the stored group "G".
    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func aNewGroupsMemberThatBecomesAStoredMember(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let listed = ["n1", "x", "n2"]
        let groupID = try await second.perform { () throws -> ObjectID in
            let members = listed.map { tag in
                let member = second.insert(TaggedMember.self)
                member.tag = tag
                return member
            }
            let group = second.insert(TaggedGroup.self)
            group.name = "H"
            group.members = members
            try second.save()
            #expect(group.members.map(\.tag) == listed)
            return group.objectID
        }
        func storedMembers(of group: ObjectID) throws -> (tags: [String], positions: [Int64]) {
            let rows = try stored.coordinator.database.read { db in
                try Row.fetchAll(db, sql: """
                    SELECT m.tag, j.source_order FROM _join_TaggedGroup_members j JOIN TaggedMember m ON m._id = j.target
                    WHERE j.source = ? ORDER BY j.source_order, j.target
                    """, arguments: [group.key])
            }
            return (rows.map { $0["tag"] }, rows.map { $0["source_order"] })
        }
        let old = try storedMembers(of: stored.group)
        #expect(old.tags == ["x", "g2"] && old.positions == [0, 1])
        let new = try storedMembers(of: groupID)
        #expect(new.tags == listed && new.positions == [0, 1, 2])
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let g = try #require(try reader.existingObject(with: stored.group) as? TaggedGroup)
            let h = try #require(try reader.existingObject(with: groupID) as? TaggedGroup)
            #expect(g.members.map(\.tag) == ["x", "g2"])
            #expect(h.members.map(\.tag) == listed)
        }
    }
}

import Foundation
import GRDB
import Testing
@testable import Strata

/// A team with a unique code and its players, an ordered many-to-many (stored in a join table
/// the players' side owns, with the team's positions in `target_order`).
final class UniqueTeam: ManagedObject {
    @Attribute("code", .unique) var code = ""
    @Relationship("players", inverse: "teams") var players: [TeamPlayer]
}

/// A player of any number of teams.
final class TeamPlayer: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("teams", inverse: "players") var teams: Set<UniqueTeam>
}

/// An insert that becomes a stored row (a unique collision the merge policy settles by adopting
/// the row) and lists members in an ordered to-many adds them after the row's stored members,
/// under every adopting policy: the insert never read those members, and a to-many is not a
/// column of the row that object-trump or overwrite could write over. The store holds distinct,
/// increasing positions (stored members first, in their order, then the insert's, in its
/// order), and the saving context, a fresh context and a context merging the change set read
/// that order. Before the fix the new members were numbered from 0, as the stored ones are.
@Suite struct AdoptedOrderedMembersTests {
    /// A store holding owner "A" with pets ["old1", "old2"] and team "T" with players ["p1", "p2"].
    struct Stored {
        let coordinator: StoreCoordinator
        let owner: ObjectID
        let team: ObjectID
    }

    static func makeStored(_ dir: TemporaryDirectory) async throws -> Stored {
        let model = try ObjectModel(UniqueOwner.self, OwnedPet.self, OwnerHome.self, OwnerClub.self, UniqueTeam.self, TeamPlayer.self)
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let first = ObjectContext(.privateQueue, coordinator: coordinator)
        let (owner, team) = try await first.perform { () throws -> (ObjectID, ObjectID) in
            let owner = first.insert(UniqueOwner.self)
            owner.code = "A"
            owner.pets = ["old1", "old2"].map { name in
                let pet = first.insert(OwnedPet.self)
                pet.name = name
                return pet
            }
            let players = ["p1", "p2"].map { name in
                let player = first.insert(TeamPlayer.self)
                player.name = name
                return player
            }
            let team = first.insert(UniqueTeam.self)
            team.code = "T"
            team.players = players
            try first.save()
            return (owner.objectID, team.objectID)
        }
        return Stored(coordinator: coordinator, owner: owner, team: team)
    }

    /// Inserts owner "A" (written after its pets, as when the pets are inserted first) with
    /// pets ["new1", "new2"], and saves.
    static func insertOwnerWithPets(_ context: ObjectContext) throws -> UniqueOwner {
        let pets = ["new1", "new2"].map { name in
            let pet = context.insert(OwnedPet.self)
            pet.name = name
            return pet
        }
        let owner = context.insert(UniqueOwner.self)
        owner.code = "A"
        owner.pets = pets
        try context.save()
        return owner
    }

    static let expectedPets = ["old1", "old2", "new1", "new2"]

    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func anAdoptedOwnersNewPetsFollowItsStoredPets(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        try await second.perform {
            let owner = try Self.insertOwnerWithPets(second)
            #expect(owner.objectID == stored.owner)
            #expect(owner.pets.map(\.name) == Self.expectedPets)
        }
        let rows = try stored.coordinator.database.read { db in
            try Row.fetchAll(db, sql: "SELECT name, _order_owner FROM OwnedPet WHERE owner = ? ORDER BY _order_owner, _id", arguments: [stored.owner.key])
        }
        #expect(rows.map { $0["name"] as String } == Self.expectedPets)
        let positions = rows.map { $0["_order_owner"] as Int64 }
        #expect(positions == positions.sorted() && Set(positions).count == positions.count)
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let owner = try #require(try reader.existingObject(with: stored.owner) as? UniqueOwner)
            #expect(owner.pets.map(\.name) == Self.expectedPets)
        }
    }

    /// The positions do not depend on row keys: a stored owner whose pets were reordered
    /// (the first pet now last) keeps that order, and the new pets follow it.
    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func theStoredOrderIsKeptWhereItIsNotTheKeyOrder(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let first = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await first.perform {
            let owner = try #require(try first.existingObject(with: stored.owner) as? UniqueOwner)
            owner.pets = Array(owner.pets.reversed())
            try first.save()
        }
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let expected = ["old2", "old1", "new1", "new2"]
        try await second.perform {
            let owner = try Self.insertOwnerWithPets(second)
            #expect(owner.pets.map(\.name) == expected)
        }
        let names = try await stored.coordinator.database.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM OwnedPet WHERE owner = ? ORDER BY _order_owner", arguments: [stored.owner.key])
        }
        #expect(names == expected)
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let owner = try #require(try reader.existingObject(with: stored.owner) as? UniqueOwner)
            #expect(owner.pets.map(\.name) == expected)
        }
    }

    /// A context holding the stored owner with its pets read learns the new pets, after the
    /// stored ones, by merging the save's change set.
    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func aMergingContextReadsTheSameOrder(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let owner = try #require(try reader.existingObject(with: stored.owner) as? UniqueOwner)
            #expect(owner.pets.map(\.name) == ["old1", "old2"])
        }
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let received = Received<ChangeSet>()
        let token = second.observeChanges { received.append($0) }
        try await second.perform { _ = try Self.insertOwnerWithPets(second) }
        _ = token
        let changes = try #require(received.all.last)
        try await reader.perform {
            reader.merge(changes)
            let owner = try #require(try reader.existingObject(with: stored.owner) as? UniqueOwner)
            #expect(owner.pets.map(\.name) == Self.expectedPets)
        }
    }

    /// The many-to-many variant: the adopted team's new players follow its stored players in
    /// the join table's positions.
    @Test(arguments: AdoptedInsertTargetTests.adoptingPolicies)
    func anAdoptedTeamsNewPlayersFollowItsStoredPlayers(policy: MergePolicy) async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: policy)
        let expected = ["p1", "p2", "n1", "n2"]
        try await second.perform {
            let players = ["n1", "n2"].map { name in
                let player = second.insert(TeamPlayer.self)
                player.name = name
                return player
            }
            let team = second.insert(UniqueTeam.self)
            team.code = "T"
            team.players = players
            try second.save()
            #expect(team.objectID == stored.team)
            #expect(team.players.map(\.name) == expected)
        }
        let rows = try stored.coordinator.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.name, j.target_order FROM _join_TeamPlayer_teams j JOIN TeamPlayer p ON p._id = j.source
                WHERE j.target = ? ORDER BY j.target_order, j.source
                """, arguments: [stored.team.key])
        }
        #expect(rows.map { $0["name"] as String } == expected)
        let positions = rows.map { $0["target_order"] as Int64 }
        #expect(positions == positions.sorted() && Set(positions).count == positions.count)
        let reader = ObjectContext(.privateQueue, coordinator: stored.coordinator)
        try await reader.perform {
            let team = try #require(try reader.existingObject(with: stored.team) as? UniqueTeam)
            #expect(team.players.map(\.name) == expected)
        }
    }

    /// A save without adoptions numbers an insert's members from 0, as before.
    @Test func aNewOwnersPetsAreNumberedFromZero() async throws {
        let dir = TemporaryDirectory()
        let stored = try await Self.makeStored(dir)
        let second = ObjectContext(.privateQueue, coordinator: stored.coordinator, mergePolicy: .mergeByPropertyObjectTrump)
        let ownerID = try await second.perform { () throws -> ObjectID in
            let pets = ["x", "y"].map { name in
                let pet = second.insert(OwnedPet.self)
                pet.name = name
                return pet
            }
            let owner = second.insert(UniqueOwner.self)
            owner.code = "B"
            owner.pets = pets
            try second.save()
            return owner.objectID
        }
        let positions = try await stored.coordinator.database.read { db in
            try Int64.fetchAll(db, sql: "SELECT _order_owner FROM OwnedPet WHERE owner = ? ORDER BY _order_owner", arguments: [ownerID.key])
        }
        #expect(positions == [0, 1])
    }
}

/// The positions of an ordered many-to-many on the side of a join table that does not write its
/// rows are written once the other side's changes have written them, wherever those come in the
/// save. Before the fix a team inserted before its players numbered rows that did not exist yet:
/// every `target_order` stayed NULL and the players read back in key order.
@Suite struct JoinTablePositionsTests {
    @Test(arguments: [false, true])
    func aTeamSavedBeforeItsPlayersKeepsTheirOrder(playersAreStored: Bool) async throws {
        let dir = TemporaryDirectory()
        let model = try ObjectModel(UniqueTeam.self, TeamPlayer.self)
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let expected = ["b", "a"]
        let teamID = try await context.perform { () throws -> ObjectID in
            let team = context.insert(UniqueTeam.self)   // written before the players
            team.code = "T"
            if playersAreStored { try context.save() }   // then the team is an update, the players inserts
            let players = ["a", "b"].map { name in
                let player = context.insert(TeamPlayer.self)
                player.name = name
                return player
            }
            team.players = players.reversed()
            try context.save()
            return team.objectID
        }
        let rows = try coordinator.database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT p.name, j.target_order FROM _join_TeamPlayer_teams j JOIN TeamPlayer p ON p._id = j.source
                WHERE j.target = ? ORDER BY j.target_order
                """, arguments: [teamID.key])
        }
        #expect(rows.map { $0["name"] as String } == expected)
        #expect(rows.map { $0["target_order"] as Int64? } == [0, 1])
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        try await reader.perform {
            let team = try #require(try reader.existingObject(with: teamID) as? UniqueTeam)
            #expect(team.players.map(\.name) == expected)
        }
    }
}

import Foundation
import Strata
import Testing
@testable import StrataSync

/// A unique attribute that is not the identifier (docs/sync.md, rule 10): two devices each
/// make a contact with one unique e-mail. The peers that receive the second cannot save it
/// (`mergeFailed`, never a damaged state) until a device changes one e-mail; then every peer
/// converges with both. (Before, the device holding one contact took the other's insert as
/// that row, reported success and never had the second contact.)
/// With the e-mail as the identifier, the two are one object.
@Suite struct SyncUniqueAttributeTests {
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Contact", attributes: [
                AttributeDescription("uniqueIdentifier", type: .string),
                AttributeDescription("email", type: .string, isUnique: true),
                AttributeDescription("name", type: .string),
            ]),
        ])
    }

    static func peers(identifiers: GlobalIdentifiers) async throws -> [SyncPeer] {
        let cloud = MemoryCloudFileSystem()
        let model = try Self.model()
        var peers: [SyncPeer] = []
        for name in ["a", "b", "c"] { peers.append(try await SyncPeer(name, cloud: cloud, model: model, identifiers: identifiers)) }
        for peer in peers { try await peer.ensemble.attach() }
        try await peers[0].edit { try $0.make("Contact", ["uniqueIdentifier": "a1", "email": "x@example.com", "name": "from a"]) }
        try await peers[1].edit { try $0.make("Contact", ["uniqueIdentifier": "b1", "email": "x@example.com", "name": "from b"]) }
        return peers
    }

    /// Two rounds of syncs; the codes of those that failed.
    static func rounds(_ peers: [SyncPeer]) async -> [SyncError.Code] {
        var failures: [SyncError.Code] = []
        for _ in 0..<2 {
            for peer in peers {
                do { try await peer.ensemble.sync() } catch { failures.append(error.code) }
            }
        }
        return failures
    }

    @Test func aTakenUniqueValueFailsTheMergeUntilADeviceChangesIt() async throws {
        let peers = try await Self.peers(identifiers: .attribute("uniqueIdentifier"))
        let failures = await Self.rounds(peers)
        #expect(!failures.isEmpty)
        #expect(failures.allSatisfy { $0 == .mergeFailed }, "\(failures)")
        for peer in peers { #expect(try await peer.count("Contact") <= 1, "on \(peer.name)") }
        // The local fix: device a changes its contact's e-mail.
        try await peers[0].edit { try $0.first("Contact", "uniqueIdentifier", .string("a1"))!.setValue("y@example.com", forKey: "email") }
        #expect(await Self.rounds(peers).isEmpty)
        for peer in peers { #expect(try await peer.count("Contact") == 2, "on \(peer.name)") }
        let dump = try await peers[0].dump()
        for peer in peers.dropFirst() {
            let other = try await peer.dump()
            #expect(other == dump, "\(peer.name): \(other)\n a: \(dump)")
        }
    }

    /// A device gives its contact another e-mail and makes a new contact with the old one:
    /// a peer that stored the first contact receives both changes in one piece, and its save
    /// frees the value before taking it again.
    @Test func aValueFreedAndTakenInOneMergeConverges() async throws {
        let peers = try await Self.peers(identifiers: .attribute("uniqueIdentifier"))
        try await peers[1].edit { try $0.first("Contact", "uniqueIdentifier", .string("b1"))!.setValue("z@example.com", forKey: "email") }
        #expect(await Self.rounds(peers).isEmpty)
        try await peers[0].edit { context in
            try context.first("Contact", "uniqueIdentifier", .string("a1"))!.setValue("y@example.com", forKey: "email")
            try context.make("Contact", ["uniqueIdentifier": "a2", "email": "x@example.com", "name": "new"])
        }
        #expect(await Self.rounds(peers).isEmpty)
        for peer in peers { #expect(try await peer.count("Contact") == 3, "on \(peer.name)") }
        let dump = try await peers[0].dump()
        for peer in peers.dropFirst() { #expect(try await peer.dump() == dump) }
    }

    @Test func theUniqueAttributeAsTheIdentifierMakesTheTwoOne() async throws {
        let peers = try await Self.peers(identifiers: .attribute("email"))
        #expect(await Self.rounds(peers).isEmpty)
        for peer in peers { #expect(try await peer.count("Contact") == 1, "on \(peer.name)") }
        let dump = try await peers[0].dump()
        for peer in peers.dropFirst() { #expect(try await peer.dump() == dump) }
    }
}

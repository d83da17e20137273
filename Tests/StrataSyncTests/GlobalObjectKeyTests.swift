import Foundation
import Strata
import Testing
@testable import StrataSync

/// Keys are equal only when their bytes are, as the state's SQLite keys are: identifiers
/// that Swift's string `==` takes as equal (canonically equivalent forms of "José") name two
/// objects, in sets and dictionaries as in the state.
@Suite struct GlobalObjectKeyTests {
    static let precomposed = "Jos\u{E9}"
    static let decomposed = "Jose\u{301}"

    @Test func canonicallyEquivalentIdentifiersAreTwoKeys() {
        #expect(Self.precomposed == Self.decomposed, "Swift's own string equality")
        let a = GlobalObjectKey(entity: "Author", gid: Self.precomposed)
        let b = GlobalObjectKey(entity: "Author", gid: Self.decomposed)
        #expect(a != b)
        #expect(Set([a, b]).count == 2)
        #expect((a < b) != (b < a))
        #expect(GlobalObjectKey(entity: "Author", gid: Self.precomposed) == a)
        #expect(Set([a, GlobalObjectKey(entity: "Author", gid: Self.precomposed)]).count == 1)
        // The split between entity and identifier counts.
        #expect(GlobalObjectKey(entity: "ab", gid: "c") != GlobalObjectKey(entity: "a", gid: "bc"))
    }

    /// Two members of one to-many whose identifiers differ only in normalization are two
    /// members on every device (sets of Swift strings held one of them). The many-to-many is
    /// kept on the album's side (its entity sorts first), so the album holds both members.
    @Test func twoSuchMembersOfOneToManyBothSync() async throws {
        let model = try ObjectModel(entities: [
            EntityDescription("Person", attributes: [AttributeDescription("uniqueIdentifier", type: .string)], relationships: [
                RelationshipDescription("albums", destination: "Album", inverse: "people", isToMany: true),
            ]),
            EntityDescription("Album", attributes: [AttributeDescription("uniqueIdentifier", type: .string)], relationships: [
                RelationshipDescription("people", destination: "Person", inverse: "albums", isToMany: true),
            ]),
        ])
        let cloud = MemoryCloudFileSystem()
        let a = try await SyncPeer("a", cloud: cloud, model: model)
        let b = try await SyncPeer("b", cloud: cloud, model: model)
        try await a.edit { context in
            let first = try context.make("Person", ["uniqueIdentifier": Self.precomposed])
            let second = try context.make("Person", ["uniqueIdentifier": Self.decomposed])
            let album = try context.make("Album", ["uniqueIdentifier": "album"])
            try album.setValue(Set([first, second]), forKey: "people")
        }
        try await a.ensemble.attach()
        try await b.ensemble.attach()
        for _ in 0..<2 { for peer in [a, b] { try await peer.ensemble.sync() } }
        for peer in [a, b] {
            let people = try await peer.context.perform {
                (try peer.context.first("Album", "uniqueIdentifier", .string("album"))?.value(forKey: "people") as? Set<ManagedObject>)?.count
            }
            #expect(people == 2, "on \(peer.name)")
            #expect(try await peer.count("Person") == 2, "on \(peer.name)")
        }
        #expect(try await a.dump() == b.dump())
    }

    /// Both objects dirty in one piece, one with a to-many member: the plan reads both (a
    /// dictionary keyed by Swift's equality trapped on the pair).
    @Test func aPieceHoldsBothObjects() throws {
        let folder = TemporaryFolder()
        let state = try SyncState(url: folder.url.appending(path: "state.sqlite"))
        defer { try? state.close() }
        let stamp = Stamp(lamport: 1, milliseconds: 0, peer: "PEER")
        let a = GlobalObjectKey(entity: "Author", gid: Self.precomposed)
        let b = GlobalObjectKey(entity: "Author", gid: Self.decomposed)
        _ = try state.write { tx in
            try tx.merge([
                StampedRecord(stamp: stamp, record: .insert(a)),
                StampedRecord(stamp: stamp, record: .cell(a, property: "name", value: [1])),
                StampedRecord(stamp: stamp, record: .insert(b)),
                StampedRecord(stamp: stamp, record: .cell(b, property: "name", value: [2])),
                StampedRecord(stamp: stamp, record: .member(b, relationship: "books", member: "book-1", present: true)),
            ], dirty: true)
        }
        let piece = try state.write { tx in try tx.dirtyObjectsWithValues(after: nil, limit: 10) }
        #expect(piece.count == 2)
        let byKey = Dictionary(uniqueKeysWithValues: piece.map { ($0.0, $0) })
        #expect(byKey[a]?.cells["name"]?.value == [1])
        #expect(byKey[b]?.cells["name"]?.value == [2])
        #expect(byKey[b]?.members["books"] == [ByteIdentifier("book-1")])
        #expect(byKey[a]?.members.isEmpty == true)
    }
}

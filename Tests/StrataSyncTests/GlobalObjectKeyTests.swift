import Foundation
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
        #expect(byKey[a]?.cells["name"] == [1])
        #expect(byKey[b]?.cells["name"] == [2])
        #expect(byKey[b]?.members["books"] == ["book-1"])
        #expect(byKey[a]?.members.isEmpty == true)
    }
}

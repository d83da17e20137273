import Foundation
import Testing
@testable import StrataSync

@Suite("Change-file names, peer identifiers and kinds")
struct ChangeFileNameTests {
    @Test("a name prints with a 20-digit count and parses back to itself")
    func roundTrip() throws {
        let peer = try PeerID("Peer-7")
        for lamport: UInt64 in [0, 1, 42, 1_000_000, .max] {
            let name = ChangeFileName(lamport: lamport, peer: peer, kind: .baseline)
            #expect(name.rawValue.hasSuffix("_Peer-7_baseline.strata"))
            #expect(name.rawValue.utf8.count == 20 + "_Peer-7_baseline.strata".utf8.count)
            #expect(try ChangeFileName(parsing: name.rawValue) == name)
            #expect(name.cloudName.rawValue == name.rawValue)
        }
        #expect(ChangeFileName(lamport: 42, peer: peer, kind: .events).rawValue == "00000000000000000042_Peer-7_events.strata")
        let random = PeerID.random()
        #expect(try PeerID(random.rawValue) == random)
    }

    @Test("names sort in Lamport order as text and as values")
    func ordering() throws {
        let a = try PeerID("a"), b = try PeerID("b")
        let names = [ChangeFileName(lamport: 10, peer: a, kind: .events), ChangeFileName(lamport: 9, peer: b, kind: .events),
                     ChangeFileName(lamport: 10, peer: b, kind: .events), ChangeFileName(lamport: 100, peer: a, kind: .blob)]
        let byValue = names.sorted()
        #expect(byValue.map(\.lamport) == [9, 10, 10, 100])
        #expect(byValue[1].peer == a)
        #expect(names.map(\.rawValue).sorted() == byValue.map(\.rawValue))
    }

    @Test("unsafe names are unsafeName; other programs' names are unrecognizedName", arguments: [
        ("../00000000000000000001_p_events.strata", SyncError.Code.unsafeName),
        ("00000000000000000001_p_events.strata\n", .unsafeName),
        ("00000000000000000001_../x_events.strata", .unsafeName),
        ("00000000000000000001_p.q_events.strata", .unsafeName),       // '.' not allowed in a peer id
        ("00000000000000000001__events.strata", .unsafeName),          // empty peer
        ("00000000000000000001_p_Events.strata", .unsafeName),         // kind is lowercase
        ("00000000000000000001_p_events_x.strata", .unrecognizedName), // four parts
        ("1_p_events.strata", .unrecognizedName),                      // not 20 digits
        ("+0000000000000000001_p_events.strata", .unrecognizedName),
        ("99999999999999999999_p_events.strata", .unrecognizedName),   // above UInt64.max
        ("00000000000000000001_p_events.txt", .unrecognizedName),
        ("00000000000000000001_p_events.strata (conflicted copy)", .unrecognizedName),
        (".DS_Store", .unrecognizedName),
    ])
    func invalidNames(_ text: String, _ expected: SyncError.Code) {
        #expect(syncErrorCode { _ = try ChangeFileName(parsing: text) } == expected, "\(text.debugDescription)")
    }

    @Test("peer identifiers and kinds are validated", arguments: ["", "-lead", "a_b", "a.b", "a/b", "é", String(repeating: "p", count: 65)])
    func invalidPeers(_ text: String) {
        #expect(syncErrorCode { _ = try PeerID(text) } == .unsafeName)
    }

    @Test("kinds: lowercase letters and digits, starting with a letter, at most 16")
    func kinds() throws {
        #expect(try ChangeFileKind("snapshot2").rawValue == "snapshot2")
        for bad in ["", "2x", "Events", "ev-ents", "ev_ents", String(repeating: "k", count: 17)] {
            #expect(syncErrorCode { _ = try ChangeFileKind(bad) } == .unsafeName, "\(bad)")
        }
    }
}

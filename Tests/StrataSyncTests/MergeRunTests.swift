import Testing
@testable import StrataSync

/// The merge walks runs of one object's records in key order: the integer prefixes that spare
/// most string comparisons must give the order of ``GlobalObjectKey``, whatever the
/// identifiers' lengths and bytes, and keep one object's runs in their list order.
@Suite struct MergeRunTests {
    static let stamp = Stamp(lamport: 1, milliseconds: 1, peer: "P")

    static func record(_ entity: String, _ gid: String, _ property: String = "name") -> StampedRecord {
        StampedRecord(stamp: stamp, record: .cell(GlobalObjectKey(entity: entity, gid: gid), property: property, value: [1]))
    }

    @Test func runsComeInKeyOrderWithListOrderKept() {
        // Identifiers that share their first eight bytes, are shorter than eight, are prefixes
        // of each other, hold bytes above 0x7F, and entities whose names are prefixes.
        let gids = ["abcdefghZ", "abcdefghA", "abcdefgh", "abc", "ab", "a\u{E9}", "b", "abcdefghAA", "\u{1F600}", "A"]
        let entities = ["Book", "Bookmark", "Author"]
        var records: [StampedRecord] = []
        for (i, gid) in gids.enumerated() {
            for entity in entities.shuffled() { records.append(Self.record(entity, gid, "p\(i)")) }
        }
        // The same object again later in the list: a second run, after the first.
        records.append(Self.record("Book", "abc", "late"))
        records.shuffle()
        records.append(Self.record("Book", "abc", "last"))

        let runs = MergeRun.inKeyOrder(records)
        let keys = runs.map(\.key)
        for (a, b) in zip(keys, keys.dropFirst()) {
            #expect(!(b < a), "\(a) then \(b)")
        }
        // Every record is in exactly one run, and each run holds one object's records.
        #expect(runs.map(\.range.count).reduce(0, +) == records.count)
        for run in runs {
            #expect(records[run.range].allSatisfy { $0.record.object == run.key })
        }
        // One object's runs keep the list's order.
        let bookABC = runs.filter { $0.key == GlobalObjectKey(entity: "Book", gid: "abc") }.map(\.range.lowerBound)
        #expect(bookABC == bookABC.sorted())
        #expect(bookABC.count >= 2)
    }

    @Test func prefixesOrderAsTheBytesDo() {
        let gids = ["", "a", "a\u{1}", "ab", "abcdefgh", "abcdefgh\u{1}", "abcdefgi", "b", "\u{7F}", "\u{80}", "\u{E9}"]
        for a in gids {
            for b in gids {
                let (pa, pb) = (MergeRun.prefix(of: a), MergeRun.prefix(of: b))
                if pa < pb { #expect(UTF8Order.compare(a, b) < 0, "\(a) \(b)") }
                if pa > pb { #expect(UTF8Order.compare(a, b) > 0, "\(a) \(b)") }
            }
        }
    }

    @Test func aListInKeyOrderIsKeptAsItIs() {
        let records = ["a", "b", "c", "d"].map { Self.record("Book", $0) }
        #expect(MergeRun.inKeyOrder(records).map(\.range.lowerBound) == [0, 1, 2, 3])
    }
}

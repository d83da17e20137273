/// A run of consecutive records of one object in a list a merge is given, and what sorts it
/// without comparing strings in most cases. A merge walks an object's runs in key order
/// (``GlobalObjectKey``'s order) and keeps one object's runs in their list order.
///
/// A backlog of tens of thousands of objects sorts as many runs: comparing each pair's
/// identifiers byte by byte was a sixth of the state's merge. A run carries its entity's rank
/// among the list's entities and its identifier's first eight bytes as one integer, so most
/// comparisons are two integer comparisons.
///
/// For example:
/// ```swift
/// for run in MergeRun.inKeyOrder(records) { merge(records[run.range], of: run.key) }
/// ```
struct MergeRun {
    var key: GlobalObjectKey
    var range: Range<Int>
    /// The place of the run's entity among the list's entities in UTF-8 order.
    var entityRank: Int
    /// The identifier's first eight bytes, big-endian, zero-padded on the right. Two runs whose
    /// prefixes differ order as the prefixes do; equal ones are compared whole.
    var prefix: UInt64

    /// The runs of `records` in key order; one object's runs in the order of the list.
    static func inKeyOrder(_ records: [StampedRecord]) -> [MergeRun] {
        var runs: [MergeRun] = []
        var entities: [String] = []   // distinct, in order of appearance; ranks assigned below
        var start = records.startIndex
        while start < records.endIndex {
            let key = records[start].record.object
            var end = start + 1
            while end < records.endIndex, records[end].record.isOf(key) { end += 1 }
            let appearance: Int
            if let last = runs.last, UTF8Order.compare(entities[last.entityRank], key.entity) == 0 {
                appearance = last.entityRank
            } else if let found = entities.firstIndex(where: { UTF8Order.compare($0, key.entity) == 0 }) {
                appearance = found
            } else {
                entities.append(key.entity)
                appearance = entities.count - 1
            }
            runs.append(MergeRun(key: key, range: start..<end, entityRank: appearance, prefix: Self.prefix(of: key.gid)))
            start = end
        }
        if entities.count > 1 {
            let order = entities.indices.sorted { UTF8Order.precedes(entities[$0], entities[$1]) }
            var rank = [Int](repeating: 0, count: entities.count)
            for (position, appearance) in order.enumerated() { rank[appearance] = position }
            for i in runs.indices { runs[i].entityRank = rank[runs[i].entityRank] }
        }
        // A list written in key order (a baseline's stamps, an ordered export) needs no sort.
        if zip(runs, runs.dropFirst()).contains(where: { !precedes($0, $1) }) { runs.sort(by: precedes) }
        return runs
    }

    /// Key order, then list order.
    static func precedes(_ a: MergeRun, _ b: MergeRun) -> Bool {
        if a.entityRank != b.entityRank { return a.entityRank < b.entityRank }
        if a.prefix != b.prefix { return a.prefix < b.prefix }
        let order = UTF8Order.compare(a.key.gid, b.key.gid)
        return order != 0 ? order < 0 : a.range.lowerBound < b.range.lowerBound
    }

    /// `gid`'s first eight UTF-8 bytes as a big-endian integer, zero-padded.
    static func prefix(of gid: String) -> UInt64 {
        var value: UInt64 = 0
        var count = 0
        for byte in gid.utf8.prefix(8) {
            value = value << 8 | UInt64(byte)
            count += 1
        }
        return count == 8 ? value : value << (8 * UInt64(8 - count))
    }
}

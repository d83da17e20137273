/// Finds which of a change set's ``SavedInserts`` inserted an object, by the key blocks the
/// saves gave each entity: a binary search, so a change set coalesced from thousands of small
/// saves costs a merge O(log n) per fault, not a scan of every save.
///
/// For example (inside the engine):
/// ```swift
/// let lookup = SavedInsertsLookup(changes.savedInserts)
/// let change = lookup.inserts(of: id)?.change(for: id)
/// ```
struct SavedInsertsLookup {
    private struct Block {
        let first: Int64
        let end: Int64
        let inserts: SavedInserts
    }

    /// Each entity's key blocks (by entity index), ordered by first key.
    private var blocks: [Int: [Block]] = [:]

    init(_ sets: [SavedInserts]) {
        for inserts in sets {
            for (entity, block) in inserts.blocks {
                blocks[entity, default: []].append(Block(first: block.first, end: block.keys.upperBound, inserts: inserts))
            }
        }
        for entity in blocks.keys { blocks[entity]?.sort { $0.first < $1.first } }
    }

    /// The save whose inserts gave `id` its key, if one of them did.
    func inserts(of id: ObjectID) -> SavedInserts? {
        guard !id.isTemporary, let list = blocks[id.entity.index] else { return nil }
        var low = 0, high = list.count
        while low < high {   // the last block starting at or before the key
            let mid = (low + high) / 2
            if list[mid].first <= id.key { low = mid + 1 } else { high = mid }
        }
        guard low > 0, id.key < list[low - 1].end else { return nil }
        return list[low - 1].inserts
    }
}

/// An object as every peer names it: its entity and its global identifier. Keys order by
/// their UTF-8 bytes, entity first, as SQLite's binary collation orders them in the state,
/// and are equal only when their bytes are: Swift's `==` on strings takes canonically
/// equivalent ones as equal ("é" precomposed and decomposed), which the state keeps apart.
struct GlobalObjectKey: Hashable, Comparable, Sendable {
    var entity: String
    var gid: String

    static func < (lhs: GlobalObjectKey, rhs: GlobalObjectKey) -> Bool {
        let entities = UTF8Order.compare(lhs.entity, rhs.entity)
        return entities != 0 ? entities < 0 : UTF8Order.precedes(lhs.gid, rhs.gid)
    }

    static func == (lhs: GlobalObjectKey, rhs: GlobalObjectKey) -> Bool {
        UTF8Order.compare(lhs.gid, rhs.gid) == 0 && UTF8Order.compare(lhs.entity, rhs.entity) == 0
    }

    func hash(into hasher: inout Hasher) {
        ByteIdentifier.combine(entity, into: &hasher)
        ByteIdentifier.combine(gid, into: &hasher)
    }
}

/// An object as every peer names it: its entity and its global identifier. Keys order by
/// their UTF-8 bytes, entity first, as SQLite's binary collation orders them in the state.
struct GlobalObjectKey: Hashable, Comparable, Sendable {
    var entity: String
    var gid: String

    static func < (lhs: GlobalObjectKey, rhs: GlobalObjectKey) -> Bool {
        lhs.entity != rhs.entity ? lhs.entity.utf8.lexicographicallyPrecedes(rhs.entity.utf8) : lhs.gid.utf8.lexicographicallyPrecedes(rhs.gid.utf8)
    }
}

/// An object as every peer names it: its entity and its global identifier.
struct GlobalObjectKey: Hashable, Comparable, Sendable {
    var entity: String
    var gid: String

    static func < (lhs: GlobalObjectKey, rhs: GlobalObjectKey) -> Bool {
        lhs.entity != rhs.entity ? lhs.entity < rhs.entity : Array(lhs.gid.utf8).lexicographicallyPrecedes(Array(rhs.gid.utf8))
    }
}

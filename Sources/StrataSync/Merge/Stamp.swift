/// When a change was made, in the order the merge uses: a Lamport count first, then the
/// wall-clock time in milliseconds, then the peer's identifier. Every peer orders any two
/// stamps the same way, so every peer keeps the same winner.
struct Stamp: Hashable, Comparable, Sendable {
    var lamport: Int64
    var milliseconds: Int64
    var peer: String

    static func < (lhs: Stamp, rhs: Stamp) -> Bool {
        if lhs.lamport != rhs.lamport { return lhs.lamport < rhs.lamport }
        if lhs.milliseconds != rhs.milliseconds { return lhs.milliseconds < rhs.milliseconds }
        return UTF8Order.precedes(lhs.peer, rhs.peer)
    }
}

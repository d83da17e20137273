/// Which of a peer's event files a state already holds: every file of `peer` up to sequence
/// number `sequence`, whose Lamport count is `lamport`. Files of that peer with a Lamport
/// count at most `lamport` are covered (a peer's counts only grow).
struct EventCoverage: Hashable, Sendable {
    var peer: String
    var sequence: Int64
    var lamport: Int64
}

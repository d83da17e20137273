/// How new permanent IDs reach the contexts below the one that assigned them.
///
/// A root save (or ``ObjectContext/obtainPermanentIDs(for:)``) gives inserted objects
/// permanent IDs. Every descendant that holds those objects under their temporary IDs must
/// switch before it next talks to its parent: a child that fetched first would get rows under
/// the permanent IDs, register them as second instances of objects it already holds, and a
/// later push of a to-many from the stale instance would drop members in the parent (an
/// import context reused across saves lost the earlier rows' relationships this way).
///
/// So the assigning context deposits the mapping into every descendant's inbox at once
/// (a lock, no queue hop): a root save right after the store's answer, before its objects are
/// marked clean; `obtainPermanentIDs` below its topmost ancestor, before applying it up the
/// chain. Each context applies its inbox on its own queue at the start of every operation that
/// exchanges IDs (fetches, saves, merges, object lookups, the answers it gives its children)
/// and again once rows or IDs have come back from below, before they become objects.
extension ObjectContext {
    /// Puts `mapping` into the inboxes of every context below this one.
    func depositPermanentIDsBelow(_ mapping: [ObjectID: ObjectID]) {
        guard !mapping.isEmpty else { return }
        for child in children.withLock({ $0.compactMap(\.context) }) {
            child.incomingPermanentIDs.withLock { $0.merge(mapping) { _, new in new } }
            child.depositPermanentIDsBelow(mapping)
        }
    }

    /// Applies the permanent IDs an ancestor deposited since the last call (on this context's queue).
    func catchUpPermanentIDs() {
        let mapping = incomingPermanentIDs.withLock { inbox -> [ObjectID: ObjectID] in
            guard !inbox.isEmpty else { return [:] }
            defer { inbox.removeAll() }
            return inbox
        }
        if !mapping.isEmpty { applyPermanentIDs(mapping) }
    }
}

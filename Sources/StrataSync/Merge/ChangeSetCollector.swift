import Strata

/// Change sets a context published while the ensemble saved, gathered from its queue.
final class ChangeSetCollector: Sendable {
    private let sets = Locked<[ChangeSet]>([])

    func add(_ changes: ChangeSet) { sets.withLock { $0.append(changes) } }

    /// The gathered sets as one.
    var merged: ChangeSet {
        sets.withLock { all in
            var result = ChangeSet()
            for set in all {
                result.inserted.formUnion(set.inserted)
                result.deleted.formUnion(set.deleted)
                result.updated.merge(set.updated) { $1 }
            }
            return result
        }
    }
}

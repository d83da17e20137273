import Dispatch

extension ObjectContext {
    /// Notes that the context was told of `changes` (it merges them, saved them itself, or
    /// hears them from its parent without merging) and returns whether they come in commit
    /// order: after every commit it was told of before, or a piece of the same change set as
    /// the last. Only then may a merge fill faults from the change set's saved inserts: a
    /// change set of a later commit told first passed over updates of objects the context did
    /// not hold, which those inserts would then predate.
    ///
    /// A change set without commit numbers (made by hand, or by sync) that updates or deletes
    /// counts as every commit made to the file so far.
    ///
    /// For example (inside the engine):
    /// ```swift
    /// let inOrder = noteCommits(of: changes)
    /// ```
    func noteCommits(of changes: ChangeSet) -> Bool {
        guard let range = changes.commits else {
            if !changes.updated.isEmpty || !changes.deleted.isEmpty {
                lastMergedCommit = max(lastMergedCommit, coordinator.fileCommits.sequence.load(ordering: .acquiring))
                lastMergedRange = nil
            }
            return false
        }
        let inOrder = range.lowerBound > lastMergedCommit || range == lastMergedRange
        lastMergedCommit = max(lastMergedCommit, range.upperBound)
        lastMergedRange = inOrder ? range : nil   // the later pieces of a set out of order are out of order too
        return inOrder
    }

    /// Whether a merge of `changes` may fill faults from their saved inserts: the inserts were
    /// saved to this context's file; no batch update or delete committed after them (their
    /// change sets reach no context by themselves); no other process's commit was noticed
    /// since, which the row cache notices (so not with it off); and the `stalenessInterval`
    /// allows it (negative: any age; 0: never; positive: saved at most that long ago).
    func mayFillFromSavedInserts(of changes: ChangeSet) -> Bool {
        let staleness = stalenessInterval
        guard staleness != 0, coordinator.rowCache.capacity > 0 else { return false }
        let file = coordinator.fileCommits
        let external = file.externalChanges.load(ordering: .acquiring)
        let lastBatch = file.lastBatchRequest.load(ordering: .acquiring)
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = staleness < 0 ? UInt64.max : UInt64(min(staleness, 1e9) * 1e9)
        return changes.savedInserts.allSatisfy { inserts in
            inserts.file === file as AnyObject && inserts.externalChanges == external && inserts.commit > lastBatch
                && now &- min(now, inserts.committedAt) <= limit
        }
    }
}

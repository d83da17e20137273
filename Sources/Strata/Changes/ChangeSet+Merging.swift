extension ChangeSet {
    /// This change set followed by `later`: what both together changed (later values win;
    /// an object inserted or updated and then deleted counts as deleted).
    ///
    /// For example:
    /// ```swift
    /// let combined = first.merging(second)
    /// ```
    public func merging(_ later: ChangeSet) -> ChangeSet {
        var result = self
        result.inserted.formUnion(later.inserted)
        for (id, values) in later.updated { result.updated[id, default: [:]].merge(values) { _, new in new } }
        result.deleted.formUnion(later.deleted)
        for id in later.deleted {
            result.inserted.remove(id)
            result.updated[id] = nil
        }
        result.permanentIDs.merge(later.permanentIDs) { _, new in new }
        result.versions.merge(later.versions) { max($0, $1) }
        result.isUnsaved = isUnsaved || later.isUnsaved
        // Each save's inserts stay; a row is its insert plus the combined set's updates.
        result.savedInserts += later.savedInserts
        // (A side without updates needs no summary: it adds no keys.)
        if let keys = updatedKeys ?? (updated.isEmpty ? [] : nil), let laterKeys = later.updatedKeys ?? (later.updated.isEmpty ? [] : nil) {
            result.updatedKeys = keys.union(laterKeys)
        }
        switch (commits, later.commits) {
        case (let a?, let b?): result.commits = min(a.lowerBound, b.lowerBound)...max(a.upperBound, b.upperBound)
        case (nil, nil): break
        default:
            // One side has no numbers: an unnumbered update or delete could be any commit, so
            // the whole set is unnumbered (see ObjectContext.noteCommits).
            let unnumbered = commits == nil ? self : later
            result.commits = unnumbered.updated.isEmpty && unnumbered.deleted.isEmpty ? (commits ?? later.commits) : nil
        }
        return result
    }
}

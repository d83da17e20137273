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
        // A carried row follows the later changes of its object (or is dropped when it cannot:
        // the merge then reads the object from the store).
        if !result.insertedRows.isEmpty {
            for (id, values) in later.updated {
                guard let row = result.insertedRows[id] else { continue }
                result.insertedRows[id] = row.applying(values, of: id.entity, version: later.versions[id])
            }
            for id in later.deleted { result.insertedRows[id] = nil }
        }
        result.insertedRows.merge(later.insertedRows) { _, new in new }
        return result
    }
}

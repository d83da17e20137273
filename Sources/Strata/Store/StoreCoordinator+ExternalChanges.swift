import GRDB

extension StoreCoordinator {
    /// Whether another connection committed to the store since the last call (or since this
    /// coordinator opened): another process, or another coordinator on the same file. Saves
    /// through this coordinator do not count; its own contexts already hear of them.
    ///
    /// Cheap enough to poll (one `PRAGMA data_version` on the writer connection): when it says
    /// `true`, read what changed with ``history(after:limit:)`` (a store that records history)
    /// or refetch, and refresh the contexts (docs/reliability.md says how).
    ///
    /// For example:
    /// ```swift
    /// if try coordinator.hasExternalChanges() {
    ///     for transaction in try coordinator.history(after: token) { token = transaction.token }
    ///     try await context.perform { context.reset() }   // or refresh the objects on screen
    /// }
    /// ```
    public func hasExternalChanges() throws(StrataError) -> Bool {
        let version: Int64
        do {
            version = try database.writeWithoutTransaction { db in try Int64.fetchOne(db, sql: "PRAGMA data_version") ?? 0 }
        } catch {
            throw Self.storeError(error, sql: "PRAGMA data_version")
        }
        let commits = fileCommits.count.load(ordering: .acquiring)
        let (changed, byThisProcess) = lastDataVersion.withLock { last in
            defer { last = (version, commits) }
            guard let previous = last, previous.version != version else { return (false, false) }
            return (true, previous.commits != commits)
        }
        if changed {   // rows another process may have rewritten
            rowCache.removeAll()
            // A merge's saved inserts stop serving faults only when the change is not explained
            // by this process's own commits (another of its coordinators on the file).
            if !byThisProcess { fileCommits.externalChanges.add(1, ordering: .relaxed) }
        }
        return changed
    }
}

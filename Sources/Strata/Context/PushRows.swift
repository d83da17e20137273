import Foundation

/// The stored rows of the saved objects a large child push updates, read on the child's queue
/// before the push enters the parent's, so that the parent fills the faults the push touches
/// from them instead of reading SQLite on its own queue (the main queue, for a child of main).
///
/// The parent takes them only while they are what its own read would give: no commit, eviction
/// or emptying of the coordinator's row cache since the read began (the cache's rule for the
/// rows it keeps), no older than the parent's `stalenessInterval` (0: never taken), and only
/// for an entity no ancestor of the parent may hold unsaved changes of (its faults would read
/// through that ancestor). A parent with a parent of its own passes them on with its next push
/// while they are current and cover it (``cover(_:)``), instead of reading them again.
///
/// For example (inside the engine, in a child's save):
/// ```swift
/// let rows = PushRows.read(for: batch, below: parent)
/// parent.absorbLater(batch, from: self, rows: rows)
/// ```
struct PushRows: Sendable {
    /// Fewer updates than this are left to the parent's own read (a page, under a millisecond).
    static let minimumUpdates = 100

    /// The rows read, by object ID.
    let rows: [ObjectID: RowSnapshot]
    /// Taken before the read began.
    let token: RowCache.Token

    /// The rows of `batch`'s updated saved objects, read from the store now; `nil` for a small
    /// batch, a row cache that is off, or a read that fails (the parent then reads, and reports
    /// what fails).
    static func read(for batch: ChangeBatch, below parent: ObjectContext) -> PushRows? {
        guard batch.updated.count >= minimumUpdates else { return nil }
        let coordinator = parent.coordinator
        guard coordinator.rowCache.capacity > 0 else { return nil }
        var keysByEntity: [Int: [Int64]] = [:]
        for change in batch.updated {
            guard let key = change.id.primaryKey else { continue }   // an object the store has no row of yet
            keysByEntity[change.id.entity.index, default: []].append(key)
        }
        // The parent's faults of an entity an ancestor may hold unsaved changes of read through it.
        let entities = keysByEntity.keys.map { coordinator.model.entities[$0] }.filter { !parent.source.ancestorsMayHavePending($0) }
        guard !entities.isEmpty else { return nil }
        let token = coordinator.rowCache.token()
        var rows: [ObjectID: RowSnapshot] = [:]
        rows.reserveCapacity(batch.updated.count)
        for entity in entities {
            guard let read = try? coordinator.readRows(of: entity, keys: keysByEntity[entity.index] ?? [], staleness: 0) else { return nil }
            for row in read { rows[row.id] = row }
        }
        return PushRows(rows: rows, token: token)
    }

    /// Whether these rows hold every updated saved object of `batch` (a row the store no longer
    /// has is absent, and is then read again).
    func cover(_ batch: ChangeBatch) -> Bool {
        batch.updated.count >= Self.minimumUpdates && batch.updated.allSatisfy { $0.id.isTemporary || rows[$0.id] != nil }
    }

    /// Whether `context` may fill its faults from these rows now.
    func areCurrent(for context: ObjectContext) -> Bool {
        context.coordinator.rowCache.isCurrent(token, staleness: context.stalenessInterval)
    }
}

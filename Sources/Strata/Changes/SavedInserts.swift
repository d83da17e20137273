import Dispatch

/// The inserts of one store save, kept by its change set (``ChangeSet/savedInserts``) so that a
/// context merging the change set can fill its faults of the new objects from them without
/// reading SQLite. Holding them costs the save nothing: the batch's inserts and the keys it
/// gave them exist already; a row is built only when a fault asks for it.
///
/// For example (inside the engine):
/// ```swift
/// if let change = inserts.change(for: id) { print(change.values) }
/// ```
final class SavedInserts: Sendable {
    /// Keys given to one entity's inserts: `first` to the insert at `positions[0]`, then one
    /// more for each following position (in batch order).
    struct KeyBlock: Sendable {
        let first: Int64
        let positions: [Int]

        /// The keys given: `first` and one more for each following position.
        var keys: Range<Int64> { first ..< first + Int64(positions.count) }
    }

    /// The batch's inserts.
    let changes: [ObjectChange]
    /// Keys given, by entity index.
    let blocks: [Int: KeyBlock]
    /// The key each temporary ID of the save became (relationship targets are named by them).
    let keys: [ObjectID: Int64]
    /// The save's commit's number among this process's commits to the file: a batch update or
    /// delete numbered after it (which no context hears of) ends these rows' use.
    let commit: UInt64
    /// When the save committed (monotonic nanoseconds), for a positive `stalenessInterval`.
    let committedAt: UInt64
    /// The file the save wrote to (the store's counters of its commits, by identity): a
    /// context of another file never takes these rows.
    let file: any AnyObject & Sendable
    /// The file's count of other processes' commits noticed, when the save committed: after
    /// another is noticed, the rows may be older than the file.
    let externalChanges: UInt64

    init(changes: [ObjectChange], blocks: [Int: KeyBlock], keys: [ObjectID: Int64], commit: UInt64,
         file: any AnyObject & Sendable, externalChanges: UInt64) {
        self.changes = changes
        self.blocks = blocks
        self.keys = keys
        self.commit = commit
        self.committedAt = DispatchTime.now().uptimeNanoseconds
        self.file = file
        self.externalChanges = externalChanges
    }

    /// The insert of `id` in this save, if it made one.
    func change(for id: ObjectID) -> ObjectChange? {
        guard let block = blocks[id.entity.index] else { return nil }
        return change(for: id, in: block)
    }

    /// ``change(for:)`` with the keys this save gave `id`'s entity, found before (a caller
    /// asking about many objects of one entity looks them up once).
    func change(for id: ObjectID, in block: KeyBlock) -> ObjectChange? {
        guard !id.isTemporary, block.keys.contains(id.key) else { return nil }
        let change = changes[block.positions[Int(id.key - block.first)]]
        return change.id.entity === id.entity ? change : nil
    }

    /// `id` as named after the save (a temporary ID of this save becomes its permanent one).
    func savedID(_ id: ObjectID) -> ObjectID {
        guard id.isTemporary, let key = keys[id] else { return id }
        return ObjectID(entity: id.entity, key: key)
    }
}

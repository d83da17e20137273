extension ChangeSet {
    /// The change set cut into pieces of at most `size` objects, so that merging a large one
    /// into the main context happens in several short turns of the main queue instead of one
    /// long one. Each object's version goes with it; the permanent-ID map goes with the first
    /// piece. An object both inserted and updated goes as one, in the piece of its insert, so
    /// that a merge can tell its row (``savedSnapshot(of:)``); every piece carries the set's
    /// commit range. A change set of at most `size` objects is returned whole.
    ///
    /// Inserts go in the order of their rows (entity, then key: the order the store created
    /// them), not the set's hash order. A list sorted by something that grows with the rows (a
    /// position, a date) then gets each piece's new objects after the previous piece's, so it
    /// appends them; in hash order every piece scattered its objects among the earlier ones,
    /// and a 100 000-row list moved most of its rows on most inserts.
    ///
    /// For example (a stack merging an import into its main context):
    /// ```swift
    /// for piece in changes.pieces(of: 1_000) { main.performAndWait { main.merge(piece) } }
    /// ```
    package func pieces(of size: Int) -> [ChangeSet] {
        guard inserted.count + updated.count + deleted.count > size else { return [self] }
        var pieces: [ChangeSet] = []
        var current = ChangeSet(permanentIDs: permanentIDs)
        current.commits = commits
        var count = 0
        func close() {
            current.updatedKeys = updatedKeys   // the whole set's: more keys than the piece's updates, never fewer
            pieces.append(current)
            current = ChangeSet()
            current.commits = commits   // every piece: the set's range (see ObjectContext.noteCommits)
            count = 0
        }
        func place(_ id: ObjectID, _ add: (inout ChangeSet) -> Void) {
            add(&current)
            if let version = versions[id] { current.versions[id] = version }
            count += 1
            if count == size { close() }
        }
        for id in deleted { place(id) { $0.deleted.insert(id) } }
        for (id, values) in updated where !inserted.contains(id) { place(id) { $0.updated[id] = values } }
        for id in inserted.sorted(by: Self.rowOrder) {
            place(id) { piece in
                piece.inserted.insert(id)
                if let values = updated[id] { piece.updated[id] = values }
                if piece.savedInserts.isEmpty { piece.savedInserts = savedInserts }
            }
        }
        if count > 0 { close() }
        return pieces
    }

    /// Entity, then key: the order in which the store created the rows.
    private static func rowOrder(_ a: ObjectID, _ b: ObjectID) -> Bool {
        a.entity.index != b.entity.index ? a.entity.index < b.entity.index : a.key < b.key
    }
}

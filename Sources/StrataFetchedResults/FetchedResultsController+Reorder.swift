import Strata

extension FetchedResultsController {
    /// Runs `body` — where the app moves rows by hand and rewrites their positions, and may
    /// save — without reporting the resulting changes to the delegate: the UI already shows
    /// them. The controller still takes the changes in, so afterwards it equals a fresh fetch.
    /// Unsaved edits made in `body` are taken in by calling `context.processPendingChanges()`
    /// before it returns, and a later save of the same values is not reported either.
    ///
    /// For example:
    /// ```swift
    /// try controller.performManualReorder {
    ///     try PositionRenumbering.move(controller.sections[0].objects, from: 5, to: 0, positionKey: "position")
    ///     try context.save()
    /// }
    /// ```
    public func performManualReorder<Result>(_ body: () throws -> Result) rethrows -> Result {
        let wasReordering = isManuallyReordering
        isManuallyReordering = true
        defer {
            context.processPendingChanges()
            isManuallyReordering = wasReordering
        }
        return try body()
    }

    /// Moves the row at `source` to `destination` within one section by rewriting the integer
    /// attribute `positionKey` with the spaced plan
    /// (``PositionRenumbering/spacedWrites(movingFrom:to:count:position:)``: one write when the
    /// new neighbours leave room), as a manual reorder (nothing reported). Only the rows the
    /// plan looks at are read. Returns the number of objects written.
    ///
    /// For example:
    /// ```swift
    /// try controller.moveObject(from: FetchedIndexPath(section: 0, row: 3), to: FetchedIndexPath(section: 0, row: 0), positionKey: "position")
    /// ```
    @discardableResult
    public func moveObject(from source: FetchedIndexPath, to destination: FetchedIndexPath, positionKey: String) throws -> Int {
        guard source.section == destination.section, index.sections.indices.contains(source.section) else { return 0 }
        let section = index.sections[source.section]
        let writes = PositionRenumbering.spacedWrites(movingFrom: source.row, to: destination.row, count: section.entries.count) {
            PositionRenumbering.integer(object(at: $0, in: section), positionKey)
        }
        let objects = writes.map { object(at: $0.index, in: section) }
        return try performManualReorder {
            for (write, object) in zip(writes, objects) { try object.setValue(write.position, forKey: positionKey) }
            return writes.count
        }
    }
}

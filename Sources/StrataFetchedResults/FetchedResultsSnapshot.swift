public import Strata

/// A controller's results as plain values, section names and object IDs in order: what a
/// diffable data source takes. Two snapshots give a ``FetchedResultsChanges`` batch with
/// ``difference(from:)``.
///
/// For example:
/// ```swift
/// let before = controller.snapshot
/// try controller.performFetch()
/// let changes = controller.snapshot.difference(from: before)
/// ```
public struct FetchedResultsSnapshot: Hashable, Sendable {
    /// One section: its name (identifier) and its objects' IDs in order.
    public struct Section: Hashable, Sendable {
        /// The section's name; unique within a snapshot.
        public var name: String
        /// The IDs of its objects, in order.
        public var objectIDs: [ObjectID]

        /// Creates a section.
        public init(name: String, objectIDs: [ObjectID]) {
            self.name = name
            self.objectIDs = objectIDs
        }
    }

    /// The sections in order.
    public var sections: [Section]

    /// Creates a snapshot.
    public init(sections: [Section]) { self.sections = sections }

    /// The section names in order.
    public var sectionIdentifiers: [String] { sections.map(\.name) }
    /// Every object ID in order, across sections.
    public var itemIdentifiers: [ObjectID] { sections.flatMap(\.objectIDs) }

    /// The batch that turns `old` into this snapshot, in the form a controller reports (see
    /// ``FetchedResultsChanges`` for how to apply it). Rows whose section was deleted or
    /// inserted are reported as deletes and inserts; an object that changed place relative
    /// to the others, or changed section, is a move. Snapshots carry no values, so there are
    /// no updates. O((n + d) · d) for n rows and d differences.
    ///
    /// For example:
    /// ```swift
    /// let changes = new.difference(from: old)
    /// for row in changes.rows { print(row) }
    /// ```
    public func difference(from old: FetchedResultsSnapshot) -> FetchedResultsChanges {
        var result = FetchedResultsChanges()
        let sectionDiff = sectionIdentifiers.difference(from: old.sectionIdentifiers)
        var deletedSections = Set<Int>(), insertedSections = Set<Int>()
        for change in sectionDiff {
            switch change {
            case .remove(let offset, let name, _):
                deletedSections.insert(offset)
                result.sections.append(FetchedSectionChange(name: name, type: .delete, index: offset))
            case .insert(let offset, let name, _):
                insertedSections.insert(offset)
                result.sections.append(FetchedSectionChange(name: name, type: .insert, index: offset))
            }
        }
        result.sections.sort { ($0.type == .delete ? 0 : 1, $0.type == .delete ? -$0.index : $0.index) < ($1.type == .delete ? 0 : 1, $1.type == .delete ? -$1.index : $1.index) }

        struct Item: Hashable { var section: String; var id: ObjectID }
        func flatten(_ snapshot: FetchedResultsSnapshot, replaced: Set<Int>, tag: String) -> ([Item], [FetchedIndexPath]) {
            var items: [Item] = [], paths: [FetchedIndexPath] = []
            for (s, section) in snapshot.sections.enumerated() {
                // Rows of a deleted or inserted section never match rows elsewhere.
                let token = replaced.contains(s) ? "\u{0}\(tag)\(s)" : section.name
                for (r, id) in section.objectIDs.enumerated() {
                    items.append(Item(section: token, id: id))
                    paths.append(FetchedIndexPath(section: s, row: r))
                }
            }
            return (items, paths)
        }
        let (oldItems, oldPaths) = flatten(old, replaced: deletedSections, tag: "old")
        let (newItems, newPaths) = flatten(self, replaced: insertedSections, tag: "new")
        var removed: [ObjectID: FetchedIndexPath] = [:], inserted: [ObjectID: FetchedIndexPath] = [:]
        for change in newItems.difference(from: oldItems) {
            switch change {
            case .remove(let offset, let item, _): removed[item.id] = oldPaths[offset]
            case .insert(let offset, let item, _): inserted[item.id] = newPaths[offset]
            }
        }
        for (id, path) in removed {
            if let to = inserted[id] {
                result.rows.append(FetchedRowChange(objectID: id, type: .move, indexPath: path, newIndexPath: to))
            } else {
                result.rows.append(FetchedRowChange(objectID: id, type: .delete, indexPath: path, newIndexPath: nil))
            }
        }
        for (id, path) in inserted where removed[id] == nil {
            result.rows.append(FetchedRowChange(objectID: id, type: .insert, indexPath: nil, newIndexPath: path))
        }
        result.rows.sort(by: FetchedResultsController<ManagedObject>.reportOrder)
        return result
    }
}

public import Strata

/// The position of an object in a controller's results: a section and a row within it.
///
/// For example:
/// ```swift
/// let first = FetchedIndexPath(section: 0, row: 0)
/// let note = controller.object(at: first)
/// ```
public struct FetchedIndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The row's index within the section.
    public var row: Int

    /// Creates an index path.
    public init(section: Int, row: Int) {
        self.section = section
        self.row = row
    }

    public static func < (lhs: FetchedIndexPath, rhs: FetchedIndexPath) -> Bool {
        (lhs.section, lhs.row) < (rhs.section, rhs.row)
    }

    public var description: String { "[\(section), \(row)]" }
}

/// What happened to a row or a section in one change batch.
///
/// For example:
/// ```swift
/// switch type { case .insert: print("new"); case .delete: print("gone"); case .move, .update: break }
/// ```
public enum FetchedResultsChangeType: String, Sendable, Hashable {
    /// Inserted (index paths are in the new state).
    case insert
    /// Deleted (index paths are in the old state).
    case delete
    /// Moved from an old index path to a new one.
    case move
    /// Changed in place (old and new index paths given; they differ when other rows moved around it).
    case update
}

/// One row change of a batch, by object ID.
///
/// For example:
/// ```swift
/// for change in changes.rows where change.type == .insert { print(change.objectID, change.newIndexPath!) }
/// ```
public struct FetchedRowChange: Hashable, Sendable, CustomStringConvertible {
    /// The object (its current ID).
    public var objectID: ObjectID
    /// What happened.
    public var type: FetchedResultsChangeType
    /// The old index path (delete, move, update).
    public var indexPath: FetchedIndexPath?
    /// The new index path (insert, move, update).
    public var newIndexPath: FetchedIndexPath?

    /// Creates a row change.
    public init(objectID: ObjectID, type: FetchedResultsChangeType, indexPath: FetchedIndexPath?, newIndexPath: FetchedIndexPath?) {
        self.objectID = objectID
        self.type = type
        self.indexPath = indexPath
        self.newIndexPath = newIndexPath
    }

    public var description: String {
        "\(type) \(objectID) \(indexPath.map(\.description) ?? "-") → \(newIndexPath.map(\.description) ?? "-")"
    }
}

/// One section change of a batch (only `.insert` and `.delete` occur).
///
/// For example:
/// ```swift
/// for change in changes.sections { print(change.type, change.name, change.index) }
/// ```
public struct FetchedSectionChange: Hashable, Sendable {
    /// The section's name.
    public var name: String
    /// `.insert` (index in the new state) or `.delete` (index in the old state).
    public var type: FetchedResultsChangeType
    /// The section's index.
    public var index: Int

    /// Creates a section change.
    public init(name: String, type: FetchedResultsChangeType, index: Int) {
        self.name = name
        self.type = type
        self.index = index
    }
}

/// Every change of one batch. Apply it to a copy of the old results in this order to get the
/// new ones (the same order as `UITableView.performBatchUpdates`):
/// 1. remove the rows of deletes and of moves' sources (old index paths, last first);
/// 2. remove deleted sections (old indices, last first) — they are empty by then;
/// 3. insert inserted sections (new indices, first first), empty;
/// 4. insert the rows of inserts and of moves' destinations (new index paths, first first);
/// 5. refresh updated rows at their new index paths.
///
/// Rows of deleted and inserted sections are reported too (as deletes and inserts); a UIKit
/// adapter that deletes or inserts a whole section skips the row changes inside it.
///
/// For example:
/// ```swift
/// func controller(_ c: FetchedResultsController<Note>, didChangeContentWith changes: FetchedResultsChanges) {
///     print(changes.sections.count, changes.rows.count)
/// }
/// ```
public struct FetchedResultsChanges: Hashable, Sendable {
    /// Section inserts and deletes.
    public var sections: [FetchedSectionChange]
    /// Row inserts, deletes, moves and updates.
    public var rows: [FetchedRowChange]

    /// Creates a batch.
    public init(sections: [FetchedSectionChange] = [], rows: [FetchedRowChange] = []) {
        self.sections = sections
        self.rows = rows
    }

    /// Whether the batch changes nothing.
    public var isEmpty: Bool { sections.isEmpty && rows.isEmpty }
}

/// Errors of the fetched results module.
///
/// For example:
/// ```swift
/// do { try controller.performFetch() } catch let error as FetchedResultsError { print(error) }
/// ```
public enum FetchedResultsError: Error, Sendable, CustomStringConvertible {
    /// The request has no sort key (a controller needs an order).
    case missingSortKey

    public var description: String {
        switch self {
        case .missingSortKey:
            "A fetched results controller needs a request with at least one sort key."
        }
    }
}

/// The name of the section a section-key value belongs to: strings as they are, nil as
/// the empty string, other values in their plain text form.
///
/// For example:
/// ```swift
/// sectionName(for: .string("Work"))   // "Work"
/// sectionName(for: .integer(3))       // "3"
/// ```
public func sectionName(for value: PropertyValue) -> String {
    switch value {
    case .null: ""
    case .string(let text): text
    case .integer(let number): String(number)
    case .bool(let flag): flag ? "1" : "0"
    default: value.description
    }
}

// The pieces of a migration plan for entity hierarchies (see `MigrationPlanner+Hierarchy.swift`).

/// Where an old entity's rows are: its table, and for an entity of a hierarchy the condition
/// on `_entity` that selects its own rows.
struct OldRows {
    var table: String
    var condition: String?

    /// ` WHERE <condition>`, or nothing.
    var whereClause: String { condition.map { " WHERE \($0)" } ?? "" }
}

/// The part of a plan that one hierarchy's table needs (see ``MigrationPlanner/hierarchyTable(_:summary:)``).
struct HierarchyTableWork {
    var dropIndexes: [String] = []
    var createIndexes: [String] = []
    /// The table rebuilt in the new layout (after any rename).
    var columnWork: [String] = []
    /// A new hierarchy's table.
    var newTables: [String] = []
    /// The table renamed with its root.
    var rename: (from: String, to: String)?
    /// The table's name when it was rebuilt (its foreign keys are checked before commit).
    var rebuilt: String?
    /// Whether its searchable columns keep their values and rows (its full-text index can stay).
    var searchUntouched = false
}

/// The SQL of one lightweight migration, in the order it runs, and a line per change for the
/// store's history.
struct MigrationPlan {
    /// Statements, run in one transaction with foreign keys off (checked before commit).
    var statements: [String] = []
    /// What changes, in words (`add Note.rating`, `rename Note.name to title`, ...).
    var summary: [String] = []
    /// Tables rebuilt (copied into a new table) because SQLite cannot alter them in place, and
    /// join tables copied under a new name: their foreign keys are checked before commit.
    var rebuiltTables: [String] = []
}

/// How one column of a migrated table is filled.
struct ColumnMapping {
    /// The column's name in the new model.
    var name: String
    /// Its declared type (and foreign-key clause) in the new model.
    var type: String
    /// The column it comes from in the old table, if any.
    var oldName: String?
    /// A SQL literal for rows that have no value: the default of an added attribute, or of an
    /// attribute made required.
    var fill: String?
    /// Whether the old column holds a foreign key.
    var oldIsForeignKey = false

    /// The expression that reads this column's new value from the old table.
    var selectExpression: String {
        guard let oldName else { return fill ?? "NULL" }
        return fill.map { "COALESCE(\(quoted(oldName)), \($0))" } ?? quoted(oldName)
    }
}

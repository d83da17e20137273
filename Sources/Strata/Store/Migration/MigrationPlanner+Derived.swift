import GRDB

/// The derived attributes in a migration (see ``DerivedColumns``).
///
/// Every `_derived_…` trigger is dropped before the tables change (a trigger naming a column
/// would stop SQLite from dropping or renaming it) and the new model's are created afterwards.
/// Every derived column of the new model is then computed from the migrated rows, in the same
/// transaction: an attribute that became derived, or a derivation that changed, is filled.
/// The statements know hierarchies' shared tables (``DerivedColumns``), so migrating a model
/// with inheritance needs no more here than the tables in place before ``after`` runs.
struct DerivedColumnsMigration {
    /// Statements that run before the tables change.
    var before: [String] = []
    /// Statements that run after the tables, join tables and indexes are in place.
    var after: [String] = []

    init(new: ObjectModel, db: Database, summary: inout [String]) throws {
        let triggers = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '\\_derived\\_%' ESCAPE '\\'")
        before = triggers.map { "DROP TRIGGER IF EXISTS \(quoted($0))" }
        guard DerivedColumns.hasDerived(new) else {
            for table in [DerivedColumns.changesTable, DerivedColumns.pendingTable] where try db.tableExists(table) {
                before.append("DROP TABLE \(table)")
            }
            return
        }
        // The recomputation logs every row it changes: nobody is waiting for those.
        after = DerivedColumns.createStatements(new) + DerivedColumns.recomputeStatements(new)
            + ["DELETE FROM \(DerivedColumns.pendingTable)", "DELETE FROM \(DerivedColumns.changesTable)"]
        let names = new.entities.flatMap { e in DerivedColumns.declaredDerived(of: e, in: new).map { "\(e.name).\($0.name)" } }   // inherited ones once, under their declaring entity
        summary.append("compute derived \(names.joined(separator: ", "))")
    }
}

import GRDB

/// The full-text indexes in a migration (see ``SearchIndex``).
///
/// Every index trigger is dropped before the tables change (a trigger naming a column would
/// stop SQLite from dropping or renaming it) and created again afterwards. An index is kept
/// when its definition is the same and its entity's searchable columns keep their values
/// (same name, no fill of nils); otherwise it is dropped and, for an entity that is still
/// searchable, created again and rebuilt from the migrated rows in the same transaction.
struct SearchIndexMigration {
    /// Statements that run before the tables change.
    var before: [String] = []
    /// Statements that run after the tables and indexes are in place.
    var after: [String] = []

    /// Plans the indexes' part; `untouched` holds the new entities whose searchable columns
    /// keep their values through the migration.
    init(new: ObjectModel, db: Database, untouched: Set<String>, summary: inout [String]) throws {
        let existing = try Row.fetchAll(db, sql: """
            SELECT type, name, sql FROM sqlite_master
            WHERE name LIKE '\\_fts\\_%' ESCAPE '\\' AND (type = 'trigger' OR (type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'))
            """)
        var tables: [String: String] = [:]
        for row in existing {
            let name: String = row["name"]
            if row["type"] as String == "trigger" {
                before.append("DROP TRIGGER IF EXISTS \(quoted(name))")
            } else {
                tables[name] = row["sql"]
            }
        }
        var kept = Set<String>()
        // A hierarchy has one index, its root's (named after its table).
        for e in new.entities where e.hierarchy.rootIndex == e.index {
            guard let create = SearchIndex.createTable(e) else { continue }
            let name = SearchIndex.tableName(e.name)
            if tables[name] == create && untouched.contains(e.name) {
                kept.insert(name)
            } else {
                after.append(create)
                after.append(SearchIndex.rebuildStatement(e.name))
                summary.append("index \(e.name) for search (\(SearchIndex.columns(of: e).joined(separator: ", ")))")
            }
            after.append(contentsOf: SearchIndex.createTriggers(e))
        }
        for name in tables.keys.sorted() where !kept.contains(name) {
            before.append("DROP TABLE \(quoted(name))")
            if !new.entities.contains(where: { SearchIndex.tableName($0.name) == name && SearchIndex.createTable($0) != nil }) {
                summary.append("remove search index \(name)")
            }
        }
    }
}

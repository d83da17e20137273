/// The full-text index of an entity with searchable attributes: an SQLite FTS5 table with
/// external content, kept current by triggers on the entity's table.
///
/// - `_fts_<Entity>`: `fts5(<searchable columns>, content='<Entity>', content_rowid='_id')`.
///   It stores only the index (terms and positions); the text stays in the entity's table once,
///   and snippets read it from there by `_id`.
/// - `_fts_<Entity>_insert`, `_delete`, `_update`: `AFTER` triggers that add a row's terms,
///   remove them (FTS5's `'delete'` command with the old values) and replace them. The update
///   trigger fires only for `UPDATE OF` a searchable column, so a save that changes other keys
///   does no index work, and entities without searchable attributes have no triggers at all.
///
/// Triggers run inside the statement that fired them, so the index changes in the same
/// transaction as the save or batch request and rolls back with it.
///
/// For example (a `Note` with searchable `title` and `body`):
/// ```sql
/// CREATE VIRTUAL TABLE "_fts_Note" USING fts5("title", "body", content='Note', content_rowid='_id', …)
/// ```
enum SearchIndex {
    /// The tokenizer: Unicode words, case and diacritics folded (like `[cd]`), and prefix
    /// indexes for one-, two- and three-character prefixes, which search-as-you-type asks for
    /// first (a one-letter prefix without one costs milliseconds over 100 000 notes).
    static let options = "tokenize='unicode61 remove_diacritics 2', prefix='1 2 3'"

    /// The name of `entity`'s FTS5 table.
    static func tableName(_ entityName: String) -> String { EntityDescription.searchIndexTableName(entityName) }

    /// The names of the triggers that keep `entityName`'s index current.
    static func triggerNames(_ entityName: String) -> [String] {
        ["insert", "delete", "update"].map { "_fts_\(entityName)_\($0)" }
    }

    /// The searchable attributes' names, in the entity's order (the FTS table's columns).
    /// In a hierarchy, the index is the root's, over every entity's searchable attributes.
    static func columns(of entity: EntityDescription) -> [String] { entity.searchIndexColumns }

    /// The `CREATE VIRTUAL TABLE` of `entity`'s index, or nil when it has no searchable attribute.
    static func createTable(_ entity: EntityDescription) -> String? {
        let columns = columns(of: entity)
        guard !columns.isEmpty else { return nil }
        let table = tableName(entity.tableName)
        return "CREATE VIRTUAL TABLE \(quoted(table)) USING fts5(\(columns.map(quoted).joined(separator: ", ")), content=\(sqlText(entity.tableName)), content_rowid='_id', \(options))"
    }

    /// The triggers of `entity`'s index (none when it has no searchable attribute).
    static func createTriggers(_ entity: EntityDescription) -> [String] {
        let columns = columns(of: entity)
        guard !columns.isEmpty else { return [] }
        let table = quoted(tableName(entity.tableName))
        let content = quoted(entity.tableName)
        let names = triggerNames(entity.tableName).map(quoted)
        let list = columns.map(quoted).joined(separator: ", ")
        let new = columns.map { "new.\(quoted($0))" }.joined(separator: ", ")
        let old = columns.map { "old.\(quoted($0))" }.joined(separator: ", ")
        let add = "INSERT INTO \(table)(rowid, \(list)) VALUES (new._id, \(new));"
        let remove = "INSERT INTO \(table)(\(table), rowid, \(list)) VALUES ('delete', old._id, \(old));"
        return [
            "CREATE TRIGGER \(names[0]) AFTER INSERT ON \(content) BEGIN \(add) END",
            "CREATE TRIGGER \(names[1]) AFTER DELETE ON \(content) BEGIN \(remove) END",
            "CREATE TRIGGER \(names[2]) AFTER UPDATE OF \(list) ON \(content) BEGIN \(remove) \(add) END",
        ]
    }

    /// Everything a new store needs for `entity`'s index (nothing when it has none).
    static func createStatements(_ entity: EntityDescription) -> [String] {
        guard let table = createTable(entity) else { return [] }
        return [table] + createTriggers(entity)
    }

    /// Fills `entity`'s (empty or stale) index from the rows of its table.
    static func rebuildStatement(_ entityName: String) -> String {
        let table = quoted(tableName(entityName))
        return "INSERT INTO \(table)(\(table)) VALUES ('rebuild')"
    }

    /// A SQL string literal.
    static func sqlText(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}

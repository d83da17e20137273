/// The SQLite layout of a model: tables, columns, indexes. Readable by any SQLite tool.
///
/// - One table per entity, named after it: `_id INTEGER PRIMARY KEY`, `_version INTEGER`
///   (optimistic locking), one column per attribute, one per to-one foreign key (named after
///   the relationship), and `_order_<rel>` where the inverse to-many is ordered.
/// - One join table per many-to-many pair, `_join_<Entity>_<rel>` with `source`, `target`
///   and, for ordered sides, `source_order` / `target_order`.
/// - `_strata_metadata(key, value)`: model hash, model schema (JSON), store UUID, format version.
/// - `_strata_keys(entity, max_key)`: the highest primary key ever used per entity, so keys
///   of deleted rows are never reused.
/// - `_strata_migrations`: the store's history of model versions (see ``MigrationHistory``).
/// - For an entity with searchable attributes, `_fts_<Entity>` (an FTS5 index with external
///   content) and its three triggers (see ``SearchIndex``).
/// - For a model with derived attributes, `_strata_derived_changes(entity, row)` and the
///   `_derived_…` triggers that keep the derived columns current (see ``DerivedColumns``).
enum StoreSchema {
    static let metadataTable = "_strata_metadata"
    static let keysTable = "_strata_keys"
    static let formatVersion = "1"

    /// The SQL name of an entity table column.
    static func columnName(_ column: Column, in entity: EntityDescription) -> String {
        switch column {
        case .attribute(let i): entity.attributes[i].name
        case .foreignKey(let i): entity.relationships[i].name
        case .order(let i): entity.relationships[i].foreignKeyOrderColumn ?? "_order_\(entity.relationships[i].name)"
        }
    }

    /// A foreign-key clause: checked when the transaction commits, so a save can write rows in
    /// any order and clear references to rows it deletes; a row never ends up naming a row
    /// that does not exist (another context's delete makes such a save a conflict).
    static func references(_ entity: EntityDescription) -> String {
        "REFERENCES \(quoted(entity.name))(_id) DEFERRABLE INITIALLY DEFERRED"
    }

    /// The statements that create an empty store for `model`.
    static func createStatements(for model: ObjectModel) -> [String] {
        var sql = [
            "CREATE TABLE \(metadataTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
            "CREATE TABLE \(keysTable) (entity TEXT PRIMARY KEY NOT NULL, max_key INTEGER NOT NULL)",
            MigrationHistory.createStatement,
        ]
        for entity in model.entities {
            sql.append(createTable(entity, in: model))
            sql.append(contentsOf: indexes(of: entity).map(\.sql))
            sql.append(contentsOf: SearchIndex.createStatements(entity))
            for r in entity.relationships {
                guard case .joinTable(let join) = r.storage, join.isOwner else { continue }
                sql.append(createJoinTable(r, of: entity, in: model))
                sql.append(joinTableIndex(join.name))
            }
        }
        // Last: the derived attributes' triggers name other entities' tables and join tables.
        sql.append(contentsOf: DerivedColumns.createStatements(model))
        return sql
    }

    /// The `CREATE TABLE` of `entity`'s table, under `name` (its own name by default).
    static func createTable(_ entity: EntityDescription, in model: ObjectModel, name: String? = nil) -> String {
        var defs = ["_id INTEGER PRIMARY KEY", "_version INTEGER NOT NULL DEFAULT 1"]
        for column in entity.columns {
            defs.append("\(quoted(columnName(column, in: entity))) \(columnType(column, of: entity, in: model))")
        }
        return "CREATE TABLE \(quoted(name ?? entity.name)) (\(defs.joined(separator: ", ")))"
    }

    /// The declared type (and foreign-key clause) of one column.
    static func columnType(_ column: Column, of entity: EntityDescription, in model: ObjectModel) -> String {
        switch column {
        case .attribute(let i): entity.attributes[i].type.sqlType
        case .foreignKey(let r): "INTEGER " + references(model.entities[entity.relationships[r].destinationIndex])
        case .order: "INTEGER"
        }
    }

    /// The indexes of `entity`'s table: one per indexed or unique attribute, one per foreign key.
    static func indexes(of entity: EntityDescription) -> [(name: String, sql: String)] {
        var result: [(name: String, sql: String)] = []
        for a in entity.attributes where a.isIndexed || a.isUnique {
            let name = "_idx_\(entity.name)_\(a.name)"
            result.append((name, "CREATE \(a.isUnique ? "UNIQUE " : "")INDEX \(quoted(name)) ON \(quoted(entity.name)) (\(quoted(a.name)))"))
        }
        for case .foreignKey(let i) in entity.columns {
            let column = entity.relationships[i].name
            let name = "_idx_\(entity.name)_\(column)"
            result.append((name, "CREATE INDEX \(quoted(name)) ON \(quoted(entity.name)) (\(quoted(column)))"))
        }
        return result
    }

    /// The `CREATE TABLE` of the join table that `r` (the owning side, on `entity`) writes,
    /// under `name` (its own name by default).
    static func createJoinTable(_ r: RelationshipDescription, of entity: EntityDescription, in model: ObjectModel, name: String? = nil) -> String {
        guard case .joinTable(let join) = r.storage else { return "" }
        var cols = ["source INTEGER NOT NULL " + references(entity),
                    "target INTEGER NOT NULL " + references(model.entities[r.destinationIndex])]
        let inverse = model.entities[r.destinationIndex].relationships[r.inverseIndex]
        if r.isOrdered { cols.append("source_order INTEGER") }
        if inverse.isOrdered { cols.append("target_order INTEGER") }
        return "CREATE TABLE \(quoted(name ?? join.name)) (\(cols.joined(separator: ", ")), PRIMARY KEY (source, target)) WITHOUT ROWID"
    }

    /// The index of a join table by target.
    static func joinTableIndex(_ table: String) -> String {
        "CREATE INDEX \(quoted("_idx\(table)_target")) ON \(quoted(table)) (target, source)"
    }
}

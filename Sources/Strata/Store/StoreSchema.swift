/// The SQLite layout of a model: tables, columns, indexes. Readable by any SQLite tool.
///
/// - One table per entity, named after it: `_id INTEGER PRIMARY KEY`, `_version INTEGER`
///   (optimistic locking), one column per attribute, one per to-one foreign key (named after
///   the relationship), and `_order_<rel>` where the inverse to-many is ordered.
/// - An inheritance hierarchy shares one table, named after its root entity: the columns of
///   every entity in it (a column is NULL in rows of entities without it) and
///   `_entity TEXT NOT NULL`, the row's own entity (see ``EntityHierarchy``).
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
        "REFERENCES \(quoted(entity.tableName))(_id) DEFERRABLE INITIALLY DEFERRED"
    }

    /// The statements that create an empty store for `model`.
    static func createStatements(for model: ObjectModel) -> [String] {
        var sql = [
            "CREATE TABLE \(metadataTable) (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)",
            "CREATE TABLE \(keysTable) (entity TEXT PRIMARY KEY NOT NULL, max_key INTEGER NOT NULL)",
            MigrationHistory.createStatement,
        ]
        for entity in model.entities {
            // A hierarchy's table, indexes and search index are its root's.
            guard entity.hierarchy.rootIndex == entity.index else { continue }
            sql.append(createTable(entity, in: model))
            sql.append(contentsOf: indexes(of: entity, in: model).map(\.sql))
            sql.append(contentsOf: SearchIndex.createStatements(entity))
        }
        for entity in model.entities {
            for r in entity.relationships where r.destinationIndex >= 0 && isDeclared(r, in: entity, model: model) {
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
        if entity.hierarchy.storesKind { defs.append("\(EntityHierarchy.kindColumn) TEXT NOT NULL") }
        for (column, owner) in tableColumns(entity, in: model) {
            defs.append("\(quoted(columnName(column, in: owner))) \(columnType(column, of: owner, in: model))")
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

    /// The columns of `entity`'s table after `_id`, `_version` (and `_entity`), each with the
    /// entity that has it: the entity's own, or for a hierarchy's root those of every entity
    /// in the hierarchy, once each, superentities first.
    static func tableColumns(_ entity: EntityDescription, in model: ObjectModel) -> [(Column, EntityDescription)] {
        guard entity.hierarchy.storesKind else { return entity.columns.map { ($0, entity) } }
        var seen = Set<String>()
        var result: [(Column, EntityDescription)] = []
        for kind in entity.hierarchy.kindIndexes.map({ model.entities[$0] }) {
            for column in kind.columns where seen.insert(columnName(column, in: kind)).inserted { result.append((column, kind)) }
        }
        return result
    }

    /// Whether `r` is declared by `entity`, not inherited from its superentity (which writes
    /// the join table).
    static func isDeclared(_ r: RelationshipDescription, in entity: EntityDescription, model: ObjectModel) -> Bool {
        guard let parent = entity.hierarchy.superentityIndex else { return true }
        return model.entities[parent].relationship(named: r.name) == nil
    }

    /// The indexes of `entity`'s table: one per indexed or unique attribute, one per foreign key
    /// (for a hierarchy's root, those of every entity in it, and one on `_entity`).
    static func indexes(of entity: EntityDescription, in model: ObjectModel? = nil) -> [(name: String, sql: String)] {
        var result: [(name: String, sql: String)] = []
        let table = entity.tableName
        let kinds = entity.hierarchy.storesKind ? (model.map { m in entity.hierarchy.kindIndexes.map { m.entities[$0] } } ?? [entity]) : [entity]
        var seen = Set<String>()
        for kind in kinds {
            for a in kind.attributes where (a.isIndexed || a.isUnique) && seen.insert(a.name).inserted {
                let name = "_idx_\(table)_\(a.name)"
                result.append((name, "CREATE \(a.isUnique ? "UNIQUE " : "")INDEX \(quoted(name)) ON \(quoted(table)) (\(quoted(a.name)))"))
            }
            for case .foreignKey(let i) in kind.columns where seen.insert(kind.relationships[i].name).inserted {
                let column = kind.relationships[i].name
                let name = "_idx_\(table)_\(column)"
                result.append((name, "CREATE INDEX \(quoted(name)) ON \(quoted(table)) (\(quoted(column)))"))
            }
        }
        if entity.hierarchy.storesKind {
            let name = "_idx_\(table)_\(EntityHierarchy.kindColumn)"
            result.append((name, "CREATE INDEX \(quoted(name)) ON \(quoted(table)) (\(EntityHierarchy.kindColumn))"))
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

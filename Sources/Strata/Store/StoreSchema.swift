/// The SQLite layout of a model: tables, columns, indexes. Readable by any SQLite tool.
///
/// - One table per entity, named after it: `_id INTEGER PRIMARY KEY`, `_version INTEGER`
///   (optimistic locking), one column per attribute, one per to-one foreign key (named after
///   the relationship), and `_order_<rel>` where the inverse to-many is ordered.
/// - One join table per many-to-many pair, `_join_<Entity>_<rel>` with `source`, `target`
///   and, for ordered sides, `source_order` / `target_order`.
/// - `_strata_metadata(key, value)`: model hash, store UUID, format version.
/// - `_strata_keys(entity, max_key)`: the highest primary key ever used per entity, so keys
///   of deleted rows are never reused.
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
        ]
        for entity in model.entities {
            var defs = ["_id INTEGER PRIMARY KEY", "_version INTEGER NOT NULL DEFAULT 1"]
            for column in entity.columns {
                let type: String
                switch column {
                case .attribute(let i): type = entity.attributes[i].type.sqlType
                case .foreignKey(let r): type = "INTEGER " + references(model.entities[entity.relationships[r].destinationIndex])
                case .order: type = "INTEGER"
                }
                defs.append("\(quoted(columnName(column, in: entity))) \(type)")
            }
            sql.append("CREATE TABLE \(quoted(entity.name)) (\(defs.joined(separator: ", ")))")
            for a in entity.attributes where a.isIndexed || a.isUnique {
                sql.append("CREATE \(a.isUnique ? "UNIQUE " : "")INDEX \(quoted("_idx_\(entity.name)_\(a.name)")) ON \(quoted(entity.name)) (\(quoted(a.name)))")
            }
            for case .foreignKey(let i) in entity.columns {
                let name = entity.relationships[i].name
                sql.append("CREATE INDEX \(quoted("_idx_\(entity.name)_\(name)")) ON \(quoted(entity.name)) (\(quoted(name)))")
            }
            for r in entity.relationships {
                guard case .joinTable(let join) = r.storage, join.isOwner else { continue }
                var cols = ["source INTEGER NOT NULL " + references(entity),
                            "target INTEGER NOT NULL " + references(model.entities[r.destinationIndex])]
                let inverse = model.entities[r.destinationIndex].relationships[r.inverseIndex]
                if r.isOrdered { cols.append("source_order INTEGER") }
                if inverse.isOrdered { cols.append("target_order INTEGER") }
                sql.append("CREATE TABLE \(quoted(join.name)) (\(cols.joined(separator: ", ")), PRIMARY KEY (source, target)) WITHOUT ROWID")
                sql.append("CREATE INDEX \(quoted("_idx\(join.name)_target")) ON \(quoted(join.name)) (target, source)")
            }
        }
        return sql
    }
}

import GRDB

/// The data a hierarchy's migration must check or clear first: unique columns whose migrated
/// values would repeat, and references to the rows of removed subentities.
extension MigrationPlanner {
    /// Refuses a unique column of a hierarchy's table whose migrated values (`value`, read from
    /// the old `table`'s rows that stay) would repeat, naming the rows. `kinds` pairs the new
    /// entities with the old ones whose name a row's `_entity` holds (none for a plain table).
    func checkUnique(column: String, value: String, table: String, condition: String?, root: EntityDescription,
                             kinds: [(kind: EntityDescription, old: EntityDescription)]) throws {
        let duplicate = try Row.fetchOne(db, sql: """
            SELECT v AS value, group_concat(_id, ' ') AS keys \
            FROM (SELECT _id, \(value) AS v FROM \(quoted(table))\(condition.map { " WHERE \($0)" } ?? "") ORDER BY _id) \
            WHERE v IS NOT NULL GROUP BY v HAVING COUNT(*) > 1 LIMIT 1
            """)
        guard let duplicate else { return }
        let keys = (duplicate["keys"] as String? ?? "").split(separator: " ").compactMap { Int64($0) }
        var entity = root
        if let key = keys.first, !kinds.isEmpty,
           let name = try String.fetchOne(db, sql: "SELECT \(EntityHierarchy.kindColumn) FROM \(quoted(table)) WHERE _id = ?", arguments: [key]),
           let pair = kinds.first(where: { $0.old.name == name }) {
            entity = pair.kind
        }
        let shown = (duplicate["value"] as DatabaseValue).description
        throw StrataError(.migrationFailed, "\(entity.name).\(column) is unique across \(root.name)'s hierarchy in this model, but \(rows(keys)) of \(root.name) would share the value \(shown). Make their values unique with the old model first (or drop the uniqueness).",
                          entity: entity.name, key: column, objectID: keys.first.map { ObjectID(entity: entity, key: $0, isTemporary: false) })
    }

    /// Clears the references to rows of removed subentities (whose hierarchy's table stays and
    /// leaves them out): optional to-ones become nil and join tables lose their pairs, before
    /// anything else changes, with the old model's names. A required to-one that points to
    /// such a row is refused, naming the rows.
    func removedRowsCleanup() throws -> [String] {
        var removedRows: [String: String] = [:]   // old table → SELECT of its removed rows' keys
        for (i, o) in old.entities.enumerated() where o.hierarchy.rootIndex == i && o.hierarchy.storesKind && Set(entityMatch.values).contains(i) {
            let gone = o.hierarchy.kindIndexes.filter { !Set(entityMatch.values).contains($0) }.map { literal(old.entities[$0].name) }
            guard !gone.isEmpty else { continue }
            removedRows[o.name] = "SELECT _id FROM \(quoted(o.name)) WHERE \(EntityHierarchy.kindColumn) IN (\(gone.joined(separator: ", ")))"
        }
        guard !removedRows.isEmpty else { return [] }
        let newOf = Dictionary(entityMatch.map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        var statements: [String] = []
        var seen = Set<String>()
        for (oi, o) in old.entities.enumerated() {
            guard let n = newOf[oi] else { continue }   // a removed entity's rows go anyway
            let e = new.entities[n]
            let matched = relationshipMatch(e, o)
            for (r, rel) in o.relationships.enumerated() {
                let destination = old.entities[rel.destinationIndex].tableName
                switch rel.storage {
                case .foreignKey(let column):
                    guard let gone = removedRows[destination], seen.insert("\(o.tableName).\(column)").inserted else { continue }
                    let table = quoted(o.tableName)
                    if let nr = matched.first(where: { $0.value == r })?.key, !e.relationships[nr].isOptional {
                        let keys = try Int64.fetchAll(db, sql: "SELECT _id FROM \(table) WHERE \(quoted(column)) IN (\(gone)) ORDER BY _id LIMIT 6")
                        if let first = keys.first {
                            throw StrataError(.migrationFailed, "\(e.name).\(e.relationships[nr].name) is required, but \(rows(keys)) of \(o.tableName) point to objects of an entity this model removes (those objects go). Point them elsewhere with the old model first, or make the relationship optional.",
                                              entity: e.name, key: e.relationships[nr].name, objectID: ObjectID(entity: e, key: first, isTemporary: false))
                        }
                    }
                    statements.append("UPDATE \(table) SET \(quoted(column)) = NULL WHERE \(quoted(column)) IN (\(gone))")
                case .joinTable(let join) where join.isOwner:
                    guard seen.insert(join.name).inserted else { continue }
                    if let gone = removedRows[o.tableName] { statements.append("DELETE FROM \(quoted(join.name)) WHERE source IN (\(gone))") }
                    if let gone = removedRows[destination] { statements.append("DELETE FROM \(quoted(join.name)) WHERE target IN (\(gone))") }
                default: continue
                }
            }
        }
        return statements
    }
}

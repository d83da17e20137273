import GRDB

/// Entity inheritance in a migration.
///
/// A hierarchy's table is planned as a whole, from its root: its columns are the union of its
/// entities' ones, and one column can hold, in the rows of different entities, values that
/// come from different old columns (an attribute renamed in one subentity), or none (an
/// attribute the row's entity no longer has). So a table that changes is rebuilt in the new
/// layout, exactly as a new store creates it: each column is read from the old table with a
/// `CASE _entity` over the row's old entity where its entities differ, `_entity` takes the new
/// names, and the rows of removed subentities are left out (references to them are cleared
/// first, see ``removedRowsCleanup()``). A table whose layout, names and rows all stay is left
/// in place.
///
/// An existing entity stays where it was: an entity that moves into a hierarchy, out of one,
/// or under another superentity is refused (``refuseHierarchyMoves()``), as Core Data needs a
/// mapping model for it. A root keeps being a root (with or without subentities), so a plain
/// entity becomes the root of a new hierarchy when subentities are added below it, and a root
/// whose subentities are all removed becomes a plain entity again.
extension MigrationPlanner {
    /// Whether `e` (of the new model) or the old entity it comes from is in a hierarchy.
    func isInHierarchy(_ e: EntityDescription) -> Bool {
        e.hierarchy.storesKind || entityMatch[e.index].map { old.entities[$0].hierarchy.storesKind } == true
    }

    /// Refuses an existing entity that moves into a hierarchy, out of one, or under another
    /// superentity: its rows would move to another table, or their `_entity` and layout would
    /// change meaning, which Core Data's inferred mapping does not do either.
    func refuseHierarchyMoves() throws(StrataError) {
        for (n, oi) in entityMatch.sorted(by: { $0.key < $1.key }) {
            let e = new.entities[n], o = old.entities[oi]
            let newParent = e.hierarchy.superentityIndex.map { new.entities[$0] }
            let oldParent = o.hierarchy.superentityIndex.map { old.entities[$0] }
            let what: String
            switch (newParent, oldParent) {
            case (nil, nil): continue
            case (let p?, let op?):
                if entityMatch[p.index] == op.index { continue }
                what = "\(o.name) was a subentity of \(op.name) and \(e.name) is one of \(p.name)"
            case (let p?, nil): what = "\(o.name) had no superentity and \(e.name) is a subentity of \(p.name)"
            case (nil, let op?): what = "\(o.name) was a subentity of \(op.name) and \(e.name) has no superentity"
            }
            throw StrataError(.migrationRequired, "\(what): moving an existing entity into an entity hierarchy, out of one or under another superentity is not a lightweight migration (Core Data needs a mapping model for it too). Keep its superentity, or add a new entity and move the objects to it yourself with the old model.", entity: e.name)
        }
    }

    /// Plans the table of the hierarchy (or former hierarchy) whose root, in the new model, is `root`.
    func hierarchyTable(_ root: EntityDescription, summary: inout [String]) throws -> HierarchyTableWork {
        var work = HierarchyTableWork()
        let kinds = root.hierarchy.kindIndexes.map { new.entities[$0] }
        let fresh = StoreSchema.indexes(of: root, in: new)
        guard let oi = entityMatch[root.index] else {
            // A new hierarchy (its entities are all new: a matched one under it would have moved).
            work.newTables.append(StoreSchema.createTable(root, in: new))
            work.createIndexes = fresh.map(\.sql)
            summary += kinds.map { "add entity \($0.name)" }
            return work
        }
        let oldRoot = old.entities[oi]
        let table = oldRoot.name   // a matched root was a root, or stood alone (see refuseHierarchyMoves)
        let oldKinds = oldRoot.hierarchy.kindIndexes.map { old.entities[$0] }
        let oldStoresKind = oldRoot.hierarchy.storesKind
        if oldRoot.name != root.name { work.rename = (oldRoot.name, root.name) }

        // Each new entity of the table that has old rows, with its old entity and their columns.
        var pairs: [(kind: EntityDescription, old: EntityDescription, mappings: [String: ColumnMapping])] = []
        for k in kinds {
            guard let m = entityMatch[k.index] else {
                summary.append("add entity \(k.name)")
                continue
            }
            let ok = old.entities[m]
            if ok.name != k.name { summary.append("rename entity \(ok.name) to \(k.name)") }
            try checkRelationships(k, ok)
            let rows = OldRows(table: table, condition: oldStoresKind ? "\(EntityHierarchy.kindColumn) = \(literal(ok.name))" : nil)
            if k.isAbstract && !ok.isAbstract, try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(quoted(table))\(rows.whereClause))") == true {
                throw StrataError(.migrationRequired, "\(k.name) becomes abstract, but the store holds objects of \(ok.name) itself, which an abstract entity cannot have. Keep it concrete, or move those objects to a subentity yourself with the old model.", entity: k.name)
            }
            let (mappings, _) = try columnMappings(k, ok, rows: rows, inherited: inheritedNames(k, ok), summary: &summary)
            pairs.append((k, ok, Dictionary(mappings.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })))
        }
        let keptOld = Set(pairs.map(\.old.name))
        let removed = oldKinds.filter { !keptOld.contains($0.name) }

        // The value of each new column, read from the old table.
        let kindColumn = EntityHierarchy.kindColumn
        var names = ["_id", "_version"]
        var values = ["_id", "_version"]
        var identity = true
        if root.hierarchy.storesKind {
            names.append(kindColumn)
            if !oldStoresKind {
                values.append(literal(root.name))
                identity = false
            } else if pairs.allSatisfy({ $0.kind.name == $0.old.name }) {
                values.append(kindColumn)
            } else {
                values.append("CASE \(kindColumn) " + pairs.map { "WHEN \(literal($0.old.name)) THEN \(literal($0.kind.name))" }.joined(separator: " ") + " END")
                identity = false
            }
        } else if oldStoresKind {
            identity = false
        }
        var columnValues: [String: String] = [:]
        for (column, owner) in StoreSchema.tableColumns(root, in: new) {
            let name = StoreSchema.columnName(column, in: owner)
            // The entities without the column read NULL there, unless their rows held none in
            // its source column already (the rows of an entity hold NULL in others' columns).
            let having = pairs.compactMap { pair in pair.mappings[name].map { (old: pair.old.name, mapping: $0) } }
            let sources = Set(having.compactMap(\.mapping.oldName))
            var branches = having.map { (old: $0.old, value: $0.mapping.selectExpression) }
            let plainColumn = having.first.flatMap { first in
                first.mapping.fill == nil && having.allSatisfy({ $0.mapping.selectExpression == first.mapping.selectExpression }) ? first.mapping.selectExpression : nil
            }
            for pair in pairs where pair.mappings[name] == nil {
                let oldColumns = Set(pair.old.columns.map { StoreSchema.columnName($0, in: pair.old) })
                if plainColumn != nil && oldColumns.isDisjoint(with: sources) { continue }
                branches.append((pair.old.name, "NULL"))
            }
            let value: String
            if branches.isEmpty {
                value = "NULL"
            } else if let first = branches.first, branches.allSatisfy({ $0.value == first.value }) {
                value = first.value
            } else {
                value = "CASE \(kindColumn) " + branches.map { "WHEN \(literal($0.old)) THEN \($0.value)" }.joined(separator: " ") + " END"
            }
            if value != quoted(name) { identity = false }
            names.append(quoted(name))
            values.append(value)
            columnValues[name] = value
        }
        if !removed.isEmpty || StoreSchema.createTable(oldRoot, in: old, name: "t") != StoreSchema.createTable(root, in: new, name: "t") {
            identity = false
        }
        let keptCondition = oldStoresKind && !removed.isEmpty
            ? "\(kindColumn) IN (\(pairs.map { literal($0.old.name) }.joined(separator: ", ")))" : nil

        // Indexes: in place, keep those that stay; rebuilt, the old ones go with the old table.
        let existing = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                                        arguments: [table]).map { (name: $0["name"] as String, sql: $0["sql"] as String) }
        var kept = Set<String>()
        if identity && work.rename == nil {
            for index in fresh where existing.contains(where: { $0.name == index.name && $0.sql == index.sql }) { kept.insert(index.name) }
        }
        work.dropIndexes = existing.filter { !kept.contains($0.name) }.map { "DROP INDEX \(quoted($0.name))" }
        work.createIndexes = fresh.filter { !kept.contains($0.name) }.map(\.sql)

        // Unique columns: checked over the rows they will hold, unless they keep a unique column as it was.
        for index in fresh where index.sql.hasPrefix("CREATE UNIQUE INDEX") {
            guard let column = uniqueColumn(index.sql, table: root.name), let value = columnValues[column] else { continue }
            let wasUnique = existing.contains { $0.sql.hasPrefix("CREATE UNIQUE INDEX") && $0.sql.hasSuffix("(\(value))") }
            if wasUnique && keptCondition == nil && value.hasPrefix("\"") { continue }
            try checkUnique(column: column, value: value, table: table, condition: keptCondition, root: root,
                            kinds: oldStoresKind ? pairs.map { ($0.kind, $0.old) } : [])
        }

        work.searchUntouched = identity
        guard !identity else { return work }
        let temporary = "_strata_rebuild_\(root.name)"
        let source = keptCondition.map { " WHERE \($0)" } ?? ""
        work.columnWork = [
            StoreSchema.createTable(root, in: new, name: temporary),
            "INSERT INTO \(quoted(temporary)) (\(names.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoted(root.name))\(source)",
            "DROP TABLE \(quoted(root.name))",
            "ALTER TABLE \(quoted(temporary)) RENAME TO \(quoted(root.name))",
        ]
        work.rebuilt = root.name
        return work
    }

    /// The property names `k` inherits from its superentity, and the column names `ok` inherited
    /// from its own (their changes are listed once, under the superentity).
    private func inheritedNames(_ k: EntityDescription, _ ok: EntityDescription) -> (new: Set<String>, old: Set<String>) {
        var names: (new: Set<String>, old: Set<String>) = ([], [])
        if let p = k.hierarchy.superentityIndex.map({ new.entities[$0] }) {
            names.new = Set(p.attributes.map(\.name) + p.relationships.map(\.name))
        }
        if let op = ok.hierarchy.superentityIndex.map({ old.entities[$0] }) {
            names.old = Set(op.columns.map { StoreSchema.columnName($0, in: op) })
        }
        return names
    }

    /// The column of a fresh `CREATE UNIQUE INDEX … ON "<table>" ("<column>")`.
    private func uniqueColumn(_ sql: String, table: String) -> String? {
        let marker = "ON \(quoted(table)) ("
        guard let range = sql.range(of: marker) else { return nil }
        let quotedColumn = sql[range.upperBound...].dropLast()
        guard quotedColumn.hasPrefix("\""), quotedColumn.hasSuffix("\""), quotedColumn.count >= 2 else { return nil }
        return String(quotedColumn.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
    }
}

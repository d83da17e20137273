import Foundation
import GRDB

/// Infers a lightweight migration from the model a store was written with (`old`) to the
/// model opening it (`new`), or says with a typed error why it cannot.
///
/// Entities, attributes and relationships are matched by their renaming identifier first,
/// then by name. The data is only read (to refuse a change the rows would violate), so the
/// planner runs the same on a read-only connection, before the file is touched, and again
/// inside the migration's exclusive transaction.
struct MigrationPlanner {
    let old: ObjectModel
    let new: ObjectModel
    let db: Database
    /// New entity index → old entity index.
    let entityMatch: [Int: Int]

    init(old: ObjectModel, new: ObjectModel, db: Database) {
        self.old = old
        self.new = new
        self.db = db
        self.entityMatch = Self.match(new.entities, old.entities, name: \.name, former: \.renamingIdentifier)
    }

    /// Pairs new items with old ones: by renaming identifier first, then by name; each old item
    /// is used once. Returns new index → old index.
    static func match<T>(_ new: [T], _ old: [T], name: (T) -> String, former: (T) -> String?) -> [Int: Int] {
        let oldIndex = Dictionary(old.enumerated().map { (name($1), $0) }, uniquingKeysWith: { a, _ in a })
        var result: [Int: Int] = [:]
        var claimed = Set<Int>()
        for (i, item) in new.enumerated() {
            if let f = former(item), let o = oldIndex[f], claimed.insert(o).inserted { result[i] = o }
        }
        for (i, item) in new.enumerated() where result[i] == nil {
            if let o = oldIndex[name(item)], claimed.insert(o).inserted { result[i] = o }
        }
        return result
    }

    func attributeMatch(_ e: EntityDescription, _ o: EntityDescription) -> [Int: Int] {
        Self.match(e.attributes, o.attributes, name: \.name, former: \.renamingIdentifier)
    }

    func relationshipMatch(_ e: EntityDescription, _ o: EntityDescription) -> [Int: Int] {
        Self.match(e.relationships, o.relationships, name: \.name, former: \.renamingIdentifier)
    }

    /// Whether the two models share at least one entity (otherwise the store is probably not
    /// this app's, and nothing is inferred).
    var sharesAnEntity: Bool { !entityMatch.isEmpty || old.entities.isEmpty }

    /// The entities and keys of the store that the new model does not know (by name or
    /// renaming identifier): what a migration would remove.
    var unknownToNewModel: [String] {
        let matched = Set(entityMatch.values)
        var unknown: [String] = []
        for (i, o) in old.entities.enumerated() where !matched.contains(i) { unknown.append(o.name) }
        for (n, i) in entityMatch {
            let o = old.entities[i], e = new.entities[n]
            let attributes = Set(attributeMatch(e, o).values), relationships = Set(relationshipMatch(e, o).values)
            for (k, a) in o.attributes.enumerated() where !attributes.contains(k) { unknown.append("\(o.name).\(a.name)") }
            for (k, r) in o.relationships.enumerated() where !relationships.contains(k) { unknown.append("\(o.name).\(r.name)") }
        }
        return unknown.sorted()
    }

    // MARK: The plan

    func plan() throws(StrataError) -> MigrationPlan {
        try refuseHierarchyMoves()
        do {
            return try makePlan()
        } catch let error as StrataError {
            throw error
        } catch {
            throw StrataError(.migrationFailed, "Reading the store to plan its migration failed: \(error)", underlying: error)
        }
    }

    private func makePlan() throws -> MigrationPlan {
        var plan = MigrationPlan()
        var dropIndexes: [String] = []
        var createIndexes: [String] = []
        var renames: [(from: String, to: String)] = []
        var columnWork: [String] = []
        var newTables: [String] = []
        var searchUntouched = Set<String>()   // entities whose searchable columns keep their values
        let matchedOld = Set(entityMatch.values)

        // Removed entities.
        var dropTables: [String] = []
        for (i, o) in old.entities.enumerated() where !matchedOld.contains(i) {
            plan.summary.append("remove entity \(o.name)")
            // A subentity has no table of its own: its rows go with its hierarchy's table, or
            // are left out when that table is rebuilt.
            guard o.hierarchy.rootIndex == i else { continue }
            dropTables.append("DROP TABLE \(quoted(o.name))")
            dropTables.append("DELETE FROM \(StoreSchema.keysTable) WHERE entity = \(literal(o.name))")
        }

        // Hierarchies (in the old model or the new one) are planned per table.
        for root in new.entities where isInHierarchy(root) && root.hierarchy.rootIndex == root.index {
            let work = try hierarchyTable(root, summary: &plan.summary)
            dropIndexes += work.dropIndexes
            createIndexes += work.createIndexes
            columnWork += work.columnWork
            newTables += work.newTables
            if let rename = work.rename { renames.append(rename) }
            if let rebuilt = work.rebuilt { plan.rebuiltTables.append(rebuilt) }
            if work.searchUntouched { searchUntouched.insert(root.name) }
        }

        for e in new.entities where !isInHierarchy(e) {
            guard let oi = entityMatch[e.index] else {
                newTables.append(StoreSchema.createTable(e, in: new))
                createIndexes.append(contentsOf: StoreSchema.indexes(of: e).map(\.sql))
                plan.summary.append("add entity \(e.name)")
                continue
            }
            let o = old.entities[oi]
            if o.name != e.name {
                renames.append((o.name, e.name))
                plan.summary.append("rename entity \(o.name) to \(e.name)")
            }
            try checkRelationships(e, o)
            let (mappings, newlyUnique) = try columnMappings(e, o, rows: OldRows(table: o.name), summary: &plan.summary)
            let oldColumnNames = Set(o.columns.map { StoreSchema.columnName($0, in: o) })
            let used = Set(mappings.compactMap(\.oldName))
            let dropped = o.columns.filter { !used.contains(StoreSchema.columnName($0, in: o)) }
            let renamedColumns = mappings.filter { $0.oldName != nil && $0.oldName != $0.name }
            let rebuild = dropped.contains { if case .foreignKey = $0 { true } else { false } }
                || renamedColumns.contains { oldColumnNames.contains($0.name) }
            let tableRenamed = o.name != e.name

            // Indexes: keep an existing one only when its table, column and definition stay.
            let existing = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                                            arguments: [o.name]).map { (name: $0["name"] as String, sql: $0["sql"] as String) }
            let desired = StoreSchema.indexes(of: e)
            var kept = Set<String>()
            if !rebuild && !tableRenamed {
                // Index names carry the column's name, so a renamed column's index is never kept.
                for index in desired where existing.contains(where: { $0.name == index.name && $0.sql == index.sql }) {
                    kept.insert(index.name)
                }
            }
            for index in existing where !kept.contains(index.name) { dropIndexes.append("DROP INDEX \(quoted(index.name))") }
            for index in desired where !kept.contains(index.name) { createIndexes.append(index.sql) }
            for a in newlyUnique { try checkUnique(a, of: e, old: o, mappings: mappings) }
            if e.attributes.filter(\.isSearchable).allSatisfy({ a in mappings.contains { $0.name == a.name && $0.oldName == a.name && $0.fill == nil } }) {
                searchUntouched.insert(e.name)
            }

            if rebuild {
                let temporary = "_strata_rebuild_\(e.name)"
                let columns = ["_id", "_version"] + mappings.map { quoted($0.name) }
                let values = ["_id", "_version"] + mappings.map(\.selectExpression)
                columnWork.append(StoreSchema.createTable(e, in: new, name: temporary))
                columnWork.append("INSERT INTO \(quoted(temporary)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoted(e.name))")
                columnWork.append("DROP TABLE \(quoted(e.name))")
                columnWork.append("ALTER TABLE \(quoted(temporary)) RENAME TO \(quoted(e.name))")
                plan.rebuiltTables.append(e.name)
            } else {
                let table = quoted(e.name)
                for m in renamedColumns {
                    columnWork.append("ALTER TABLE \(table) RENAME COLUMN \(quoted(m.oldName ?? m.name)) TO \(quoted(m.name))")
                }
                for column in dropped {
                    columnWork.append("ALTER TABLE \(table) DROP COLUMN \(quoted(StoreSchema.columnName(column, in: o)))")
                }
                for m in mappings {
                    if m.oldName == nil {
                        columnWork.append("ALTER TABLE \(table) ADD COLUMN \(quoted(m.name)) \(m.type)\(m.fill.map { " DEFAULT \($0)" } ?? "")")
                    } else if let fill = m.fill {
                        columnWork.append("UPDATE \(table) SET \(quoted(m.name)) = \(fill) WHERE \(quoted(m.name)) IS NULL")
                    }
                }
            }
        }

        let search = try SearchIndexMigration(new: new, db: db, untouched: searchUntouched, summary: &plan.summary)
        let derived = try DerivedColumnsMigration(new: new, db: db, summary: &plan.summary)
        plan.statements = derived.before + search.before + (try removedRowsCleanup()) + dropIndexes + dropTables
        // Renames go through temporary names, so that two entities can swap names.
        for (i, r) in renames.enumerated() {
            plan.statements.append("ALTER TABLE \(quoted(r.from)) RENAME TO \(quoted("_strata_rename_\(i)"))")
            plan.statements.append("UPDATE \(StoreSchema.keysTable) SET entity = \(literal("_strata_rename_\(i)")) WHERE entity = \(literal(r.from))")
        }
        for (i, r) in renames.enumerated() {
            plan.statements.append("ALTER TABLE \(quoted("_strata_rename_\(i)")) RENAME TO \(quoted(r.to))")
            plan.statements.append("UPDATE \(StoreSchema.keysTable) SET entity = \(literal(r.to)) WHERE entity = \(literal("_strata_rename_\(i)"))")
        }
        plan.statements += columnWork + newTables
        plan.statements += try joinTableStatements(summary: &plan.summary, copied: &plan.rebuiltTables)
        plan.statements += createIndexes
        plan.statements += search.after
        plan.statements += derived.after
        return plan
    }

    // MARK: Columns

    /// How each column of `e`'s new table is filled from `o`'s old one, and the attributes
    /// that become unique (whose data must be checked). `rows` says where `o`'s rows are; the
    /// changes are listed in `summary`, but those of the properties (new names) and old columns
    /// in `inherited` (a subentity's inherited ones, which its superentity lists).
    func columnMappings(_ e: EntityDescription, _ o: EntityDescription, rows: OldRows,
                        inherited: (new: Set<String>, old: Set<String>) = ([], []),
                        summary: inout [String]) throws -> ([ColumnMapping], [AttributeDescription]) {
        var changes: [String] = []
        func note(_ key: String, _ line: String) { if !inherited.new.contains(key) { changes.append(line) } }
        defer { summary += changes }
        let attributes = attributeMatch(e, o)
        let relationships = relationshipMatch(e, o)
        let hasRows = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM \(quoted(rows.table))\(rows.whereClause))") ?? false
        let oldColumns = Dictionary(o.columns.map { (StoreSchema.columnName($0, in: o), $0) }, uniquingKeysWith: { a, _ in a })
        var mappings: [ColumnMapping] = []
        var newlyUnique: [AttributeDescription] = []
        for (i, a) in e.attributes.enumerated() {
            var m = ColumnMapping(name: a.name, type: a.type.sqlType)
            let fill = a.defaultValue.isNull ? nil : sqlLiteral(a.defaultValue.databaseValue)
            if let oa = attributes[i].map({ o.attributes[$0] }) {
                try checkType(a, oa, entity: e)
                m.oldName = oa.name
                if oa.name != a.name { note(a.name, "rename \(e.name).\(oa.name) to \(a.name)") }
                if oa.type != a.type { note(a.name, "widen \(e.name).\(a.name) from \(oa.type) to \(a.type)") }
                if oa.isOptional && !a.isOptional {
                    note(a.name, "make \(e.name).\(a.name) required")
                    if let fill { m.fill = fill } else { try checkNoNulls(column: oa.name, rows: rows, key: a.name, entity: e) }
                }
                if a.isUnique && !oa.isUnique { newlyUnique.append(a) }
            } else {
                if !a.isOptional && fill == nil && hasRows {
                    throw StrataError(.migrationRequired, "\(e.name).\(a.name) is added as a required attribute without a default value, and the store holds \(e.name) rows that would have no value. Give it a default value (it fills the existing rows) or make it optional.", entity: e.name, key: a.name)
                }
                m.fill = fill
                note(a.name, "add \(e.name).\(a.name)")
                if a.isUnique { newlyUnique.append(a) }
            }
            mappings.append(m)
        }
        for column in e.columns {
            switch column {
            case .attribute: continue
            case .foreignKey(let r):
                let rel = e.relationships[r]
                var m = ColumnMapping(name: rel.name, type: StoreSchema.columnType(column, of: e, in: new))
                if let or = relationships[r] {
                    m.oldName = o.relationships[or].name
                    m.oldIsForeignKey = true
                    if o.relationships[or].name != rel.name { note(rel.name, "rename \(e.name).\(o.relationships[or].name) to \(rel.name)") }
                    if o.relationships[or].isOptional && !rel.isOptional {
                        try checkNoNulls(column: o.relationships[or].name, rows: rows, key: rel.name, entity: e)
                    }
                } else {
                    if !rel.isOptional && hasRows {
                        throw StrataError(.migrationRequired, "\(e.name).\(rel.name) is added as a required to-one relationship, and the store holds \(e.name) rows that would have none. Make it optional, then set it and make it required in a later version.", entity: e.name, key: rel.name)
                    }
                    note(rel.name, "add \(e.name).\(rel.name)")
                }
                mappings.append(m)
            case .order(let r):
                let rel = e.relationships[r]
                let name = StoreSchema.columnName(column, in: e)
                var m = ColumnMapping(name: name, type: "INTEGER")
                if let or = relationships[r], let oldColumn = o.relationships[or].foreignKeyOrderColumn, oldColumns[oldColumn] != nil {
                    m.oldName = oldColumn
                } else {
                    note(rel.name, "add order of \(e.name).\(rel.name)")
                }
                mappings.append(m)
            }
        }
        for (name, _) in oldColumns where !mappings.contains(where: { $0.oldName == name }) && !inherited.old.contains(name) {
            changes.append("remove \(o.name).\(name)")
        }
        return (mappings, newlyUnique)
    }

    /// Refuses a type change that could lose or garble values: only integer widenings infer.
    private func checkType(_ a: AttributeDescription, _ oa: AttributeDescription, entity e: EntityDescription) throws(StrataError) {
        let widening: [AttributeType: Set<AttributeType>] = [.int16: [.int32, .int64], .int32: [.int64]]
        if a.type == oa.type || widening[oa.type]?.contains(a.type) == true {
            if a.type == .transformable && a.transformerName != oa.transformerName {
                throw StrataError(.migrationRequired, "\(e.name).\(a.name) changes transformer from \(oa.transformerName?.rawValue ?? "none") to \(a.transformerName?.rawValue ?? "none"); the stored bytes would not decode. Keep the transformer, or add an attribute under a new key and convert the values yourself with the old model.", entity: e.name, key: a.name)
            }
            return
        }
        throw StrataError(.migrationRequired, "\(e.name).\(a.name) changes type from \(oa.type) to \(a.type), which a lightweight migration cannot infer without losing data. Keep the type, or add an attribute under a new key (the old one is then removed with its values), or convert the values yourself with the old model before opening the store with this one.", entity: e.name, key: a.name)
    }

    /// Refuses relationship changes other than renames: a new destination, cardinality or
    /// ordering, or a one-to-one whose foreign key would move to the other table.
    func checkRelationships(_ e: EntityDescription, _ o: EntityDescription) throws(StrataError) {
        for (r, or) in relationshipMatch(e, o) {
            let rel = e.relationships[r], orel = o.relationships[or]
            let inverse = new.entities[rel.destinationIndex].relationships[rel.inverseIndex]
            let oldInverse = old.entities[orel.destinationIndex].relationships[orel.inverseIndex]
            let sameDestination = entityMatch[rel.destinationIndex] == orel.destinationIndex
            let sameInverse = sameDestination
                && relationshipMatch(new.entities[rel.destinationIndex], old.entities[orel.destinationIndex])[rel.inverseIndex] == orel.inverseIndex
            let sameShape = rel.isToMany == orel.isToMany && rel.isOrdered == orel.isOrdered
                && inverse.isToMany == oldInverse.isToMany && inverse.isOrdered == oldInverse.isOrdered
            let sameSide: Bool = switch (rel.storage, orel.storage) {
            case (.foreignKey, .foreignKey), (.inverseForeignKey, .inverseForeignKey), (.joinTable, .joinTable): true
            default: false
            }
            guard sameDestination && sameInverse && sameShape && sameSide else {
                throw StrataError(.migrationRequired, "\(e.name).\(rel.name) changes its destination, inverse, cardinality or ordering (or, for a one-to-one, the table that holds it), which a lightweight migration does not infer. Keep the relationship as it was, or add a new one under a new key and link the objects yourself.", entity: e.name, key: rel.name)
            }
        }
    }

    // MARK: Data checks

    /// Refuses making `column` required without a default while rows hold nil there.
    private func checkNoNulls(column: String, rows source: OldRows, key: String, entity e: EntityDescription) throws {
        let keys = try Int64.fetchAll(db, sql: "SELECT _id FROM \(quoted(source.table)) WHERE \(source.condition.map { "\($0) AND " } ?? "")\(quoted(column)) IS NULL ORDER BY _id LIMIT 6")
        guard !keys.isEmpty else { return }
        throw StrataError(.migrationFailed, "\(e.name).\(key) becomes required without a default value, but \(rows(keys)) of \(e.name) have no value. Give it a default value (it fills those rows), or set a value in those objects with the old model first.",
                          entity: e.name, key: key, objectID: ObjectID(entity: e, key: keys[0], isTemporary: false))
    }

    /// Refuses a uniqueness constraint that existing rows violate, naming them.
    private func checkUnique(_ a: AttributeDescription, of e: EntityDescription, old o: EntityDescription, mappings: [ColumnMapping]) throws {
        guard let m = mappings.first(where: { $0.name == a.name }) else { return }
        let duplicate = try Row.fetchOne(db, sql: """
            SELECT v AS value, group_concat(_id, ' ') AS keys \
            FROM (SELECT _id, \(m.selectExpression) AS v FROM \(quoted(o.name)) ORDER BY _id) \
            WHERE v IS NOT NULL GROUP BY v HAVING COUNT(*) > 1 LIMIT 1
            """)
        guard let duplicate else { return }
        let keys = (duplicate["keys"] as String? ?? "").split(separator: " ").compactMap { Int64($0) }
        let shown = (duplicate["value"] as DatabaseValue).description
        throw StrataError(.migrationFailed, "\(e.name).\(a.name) becomes unique, but \(rows(keys)) of \(e.name) share the value \(shown). Make their values unique with the old model first (or drop the uniqueness).",
                          entity: e.name, key: a.name, objectID: keys.first.map { ObjectID(entity: e, key: $0, isTemporary: false) })
    }

    /// "rows 3, 7 and 9" (at most five keys, then "and more").
    func rows(_ keys: [Int64]) -> String {
        let shown = keys.prefix(5).map(String.init)
        guard let last = shown.last else { return "no rows" }
        let list = shown.count == 1 ? last : shown.dropLast().joined(separator: ", ") + " and " + last
        return (keys.count == 1 ? "row " : "rows ") + list + (keys.count > 5 ? " and more" : "")
    }

    // MARK: Join tables

    /// Creates, copies (when renamed or turned around) and drops join tables.
    private func joinTableStatements(summary: inout [String], copied: inout [String]) throws -> [String] {
        var create: [String] = [], copy: [String] = [], finish: [String] = [], indexes: [String] = []
        var keptOld = Set<String>()
        var counter = 0
        for e in new.entities {
            for (r, rel) in e.relationships.enumerated() {
                // An inherited relationship's join table is its superentity's.
                guard case .joinTable(let join) = rel.storage, join.isOwner, StoreSchema.isDeclared(rel, in: e, model: new) else { continue }
                var source: (table: String, sameOrientation: Bool)?
                if let oi = entityMatch[e.index], let or = relationshipMatch(e, old.entities[oi])[r],
                   case .joinTable(let oldJoin) = old.entities[oi].relationships[or].storage {
                    source = (oldJoin.name, oldJoin.isOwner)
                }
                if let source, source.table == join.name, source.sameOrientation {
                    keptOld.insert(join.name)
                    continue
                }
                let temporary = "_strata_join_\(counter)"
                counter += 1
                create.append(StoreSchema.createJoinTable(rel, of: e, in: new, name: temporary))
                let inverse = new.entities[rel.destinationIndex].relationships[rel.inverseIndex]
                var columns = ["source", "target"]
                if rel.isOrdered { columns.append("source_order") }
                if inverse.isOrdered { columns.append("target_order") }
                if let source {
                    let swap = ["source": "target", "target": "source", "source_order": "target_order", "target_order": "source_order"]
                    let values = source.sameOrientation ? columns : columns.map { swap[$0] ?? $0 }
                    copy.append("INSERT INTO \(quoted(temporary)) (\(columns.joined(separator: ", "))) SELECT \(values.joined(separator: ", ")) FROM \(quoted(source.table))")
                    summary.append("move join table \(source.table) to \(join.name)")
                    copied.append(join.name)
                } else {
                    summary.append("add join table \(join.name)")
                }
                finish.append("ALTER TABLE \(quoted(temporary)) RENAME TO \(quoted(join.name))")
                indexes.append(StoreSchema.joinTableIndex(join.name))
            }
        }
        var drops: [String] = []
        for o in old.entities {
            for rel in o.relationships {
                guard case .joinTable(let join) = rel.storage, join.isOwner, !keptOld.contains(join.name),
                      StoreSchema.isDeclared(rel, in: o, model: old) else { continue }
                drops.append("DROP TABLE \(quoted(join.name))")
            }
        }
        return create + copy + drops + finish + indexes
    }

    // MARK: Literals

    func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }

    /// A SQL literal for a default value.
    func sqlLiteral(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: return "NULL"
        case .int64(let i): return String(i)
        case .double(let d):
            if d.isNaN { return "NULL" }
            if d.isInfinite { return d < 0 ? "-9e999" : "9e999" }
            return d.description
        case .string(let s):
            return s.contains("\0") ? "CAST(X'\(hex(Data(s.utf8)))' AS TEXT)" : literal(s)
        case .blob(let data): return "X'\(hex(data))'"
        }
    }

    private func hex(_ data: Data) -> String { data.map { String(format: "%02X", $0) }.joined() }
}

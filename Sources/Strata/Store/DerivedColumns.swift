/// The SQL that keeps derived attributes current: triggers created with the schema, so that
/// every write — a context's save, a batch request, a migration's copy — recomputes the
/// derived columns of the rows it affects inside the same statement and transaction.
///
/// The value of a derived attribute `d` of entity `F` is a correlated subquery over `F`'s own
/// row:
///
/// | derivation | value | triggers |
/// |---|---|---|
/// | `lowercase:(a)` | `strata_lowercase("F"."a")` (`uppercase`, `canonical` alike) | after insert on `F`, after update of `a` on `F` |
/// | `r.a` (to-one, key in `F`) | `(SELECT t."a" FROM "E" t WHERE t._id = "F"."r")` | after insert on `F` and `E`, after update of `r` on `F`, of `a` on `E` |
/// | `r.@count`, `r.@sum.a`… (key in `E`) | `(SELECT count(*) FROM "E" t WHERE t."inv" = "F"._id)` | after insert on `F`; after insert, delete, update of `inv` (and `a`) on `E` |
/// | the same through a join table | `(SELECT … FROM "J" j JOIN "E" t ON … WHERE j."own" = "F"._id)` | after insert on `F`; after insert, delete on `J`; after update of `a` on `E` |
///
/// The triggers of string functions and to-one key paths run `UPDATE "F" SET "d" = <value>
/// WHERE <affected rows>` at once: each touches the rows that change. The triggers of to-many
/// aggregates only mark the owning rows in `_strata_derived_pending(entity, row)`; the writer
/// recomputes each marked row once, at the end of its transaction (``flushStatements(_:)``).
/// Recomputing an aggregate per member write would make inserting n members into one owner
/// cost O(n²) (20 000 notes into one folder: 24 s instead of 0.05 s in raw SQLite).
///
/// Trigger names are `_derived_<F>.<n>`, `_derived_<F>.pending.<n>` and `_derived_<F>.log` (an
/// entity name cannot hold a dot, so two entities' names never collide, even when they share a
/// hierarchy's table).
///
/// In an inheritance hierarchy the tables above are the hierarchy's shared table (named after
/// its root). The entity that declares a derived attribute owns its triggers; its subentities
/// inherit the attribute and the triggers cover their rows: each fires only `WHEN
/// new._entity IN (<the entity and its subentities>)` and its `UPDATE` is restricted the same
/// way, so a sibling's rows (whose column of that name is NULL, or another sibling's own
/// derived attribute) are never written. A to-many's members are the rows of its destination
/// and of the destination's subentities. The log names each row's own entity (`new._entity`),
/// as its object's ID does. A model without hierarchies gets the same SQL as before.
///
/// One more trigger per entity with derived attributes, `_derived_<F>.log`, writes the key of
/// each row whose derived value changed into `_strata_derived_changes`; a save reads those rows
/// back (so the saving context and the contexts merging its change set see the new values)
/// and empties the table. Writes from other programs leave rows there until the next save.
///
/// The string functions are SQL functions Strata registers on its connections: another
/// program writing a string that a derivation reads needs them too (SQLite reports
/// "no such function: strata_lowercase").
enum DerivedColumns {
    static let changesTable = "_strata_derived_changes"
    static let pendingTable = "_strata_derived_pending"
    static let triggerPrefix = "_derived_"
    static let lowercaseFunction = "strata_lowercase"
    static let uppercaseFunction = "strata_uppercase"

    /// The table that lists rows whose derived values changed (by entity name and key).
    static let createChangesTable =
        "CREATE TABLE IF NOT EXISTS \(changesTable) (entity TEXT NOT NULL, row INTEGER NOT NULL, PRIMARY KEY (entity, row)) WITHOUT ROWID"

    /// The table that lists rows whose aggregates must be recomputed (by entity name and key).
    static let createPendingTable =
        "CREATE TABLE IF NOT EXISTS \(pendingTable) (entity TEXT NOT NULL, row INTEGER NOT NULL, PRIMARY KEY (entity, row)) WITHOUT ROWID"

    /// Whether any entity of `model` has a derived attribute.
    static func hasDerived(_ model: ObjectModel) -> Bool {
        model.entities.contains { $0.attributes.contains(where: \.isDerived) }
    }

    /// Everything a store of `model` needs (nothing when no attribute is derived).
    static func createStatements(_ model: ObjectModel) -> [String] {
        guard hasDerived(model) else { return [] }
        return [createChangesTable, createPendingTable] + model.entities.flatMap { triggers(of: $0, in: model) }
    }

    /// Statements that set every derived column of every row from the data (a migration's last step).
    static func recomputeStatements(_ model: ObjectModel) -> [String] {
        model.entities.flatMap { entity in
            declaredDerived(of: entity, in: model).compactMap { attribute in
                attribute.derivation.map {
                    let rows = entity.kindCondition(alias: "").map { " WHERE \($0)" } ?? ""
                    return "UPDATE \(quoted(entity.tableName)) SET \(quoted(attribute.name)) = \(value($0, of: entity, in: model))\(rows)"
                }
            }
        }
    }

    /// The derived attributes `entity` declares itself: all of them outside a hierarchy; in
    /// one, those its superentity does not have (an inherited attribute's triggers are its
    /// superentity's, and they cover this entity's rows).
    static func declaredDerived(of entity: EntityDescription, in model: ObjectModel) -> [AttributeDescription] {
        let inherited = entity.hierarchy.superentityIndex.map { model.entities[$0].attributes.count } ?? 0
        return entity.attributes[inherited...].filter(\.isDerived)
    }

    /// The triggers of the derived attributes `entity` declares, and its log trigger. In a
    /// hierarchy they fire only for rows of `entity` and its subentities (`WHEN
    /// new._entity IN (…)`), and their `UPDATE`s touch only those rows.
    static func triggers(of entity: EntityDescription, in model: ObjectModel) -> [String] {
        let derived = declaredDerived(of: entity, in: model)
        guard !derived.isEmpty else { return [] }
        var result: [String] = []
        var marks: [Firing] = []   // the aggregates' firings, once each for the entity
        var updates: [(firing: Firing, assignments: [String])] = []   // the others', by firing
        for attribute in derived {
            guard let derivation = attribute.derivation else { continue }
            if case .toMany = derivation {
                for firing in firings(derivation, of: entity, in: model) where !marks.contains(firing) { marks.append(firing) }
                continue
            }
            let assignment = "\(quoted(attribute.name)) = \(value(derivation, of: entity, in: model))"
            for firing in firings(derivation, of: entity, in: model) {
                if let i = updates.firstIndex(where: { $0.firing == firing }) { updates[i].assignments.append(assignment) }
                else { updates.append((firing, [assignment])) }
            }
        }
        let own = quoted(entity.tableName)
        // One trigger per write and set of rows: a new row's string functions and key paths are
        // one UPDATE of that row, not one per attribute.
        for (n, update) in updates.enumerated() {
            let name = quoted("\(triggerPrefix)\(entity.name).\(n)")
            result.append("CREATE TRIGGER \(name) AFTER \(update.firing.head) BEGIN UPDATE \(own) SET \(update.assignments.joined(separator: ", ")) WHERE \(entity.restricting(update.firing.rows, alias: "") ?? ""); END")
        }
        for (n, trigger) in marks.enumerated() {
            let name = quoted("\(triggerPrefix)\(entity.name).pending.\(n)")
            result.append("CREATE TRIGGER \(name) AFTER \(trigger.head) BEGIN INSERT OR IGNORE INTO \(pendingTable) (entity, row) SELECT \(SearchIndex.sqlText(entity.name)), _id FROM \(own) WHERE \(entity.restricting(trigger.rows, alias: "") ?? ""); END")
        }
        let columns = derived.map { quoted($0.name) }
        var changed = columns.map { "old.\($0) IS NOT new.\($0)" }.joined(separator: " OR ")
        if let kind = entity.kindCondition(alias: "new") { changed = "\(kind) AND (\(changed))" }
        // In a hierarchy the log names each row's own entity, as its object's ID does.
        let logged = entity.hierarchy.storesKind ? "new.\(EntityHierarchy.kindColumn)" : SearchIndex.sqlText(entity.name)
        result.append("CREATE TRIGGER \(quoted("\(triggerPrefix)\(entity.name).log")) AFTER UPDATE OF \(columns.joined(separator: ", ")) ON \(own) WHEN \(changed) BEGIN INSERT OR IGNORE INTO \(changesTable) (entity, row) VALUES (\(logged), new._id); END")
        return result
    }

    /// A trigger's event (`INSERT`, `DELETE`, `UPDATE OF …`), table, the rows of that table it
    /// fires for (`when`: a hierarchy's kinds, nil for every row), and the `WHERE` clause that
    /// picks the derived rows it recomputes.
    private struct Firing: Equatable {
        var event: String
        var table: String
        var rows: String
        var when: String? = nil

        /// `<event> ON <table> [WHEN <when>]`.
        var head: String { "\(event) ON \(quoted(table))\(when.map { " WHEN \($0)" } ?? "")" }
    }

    /// The statements that recompute the to-many aggregates of the rows marked pending, then
    /// empty the marks: one `UPDATE` per entity with aggregates. A writer runs them at the end
    /// of its transaction, before it reads the changed values back.
    static func flushStatements(_ model: ObjectModel) -> [String] {
        var result: [String] = []
        for entity in model.entities {
            let assignments = declaredDerived(of: entity, in: model).compactMap { attribute -> String? in
                guard let derivation = attribute.derivation, case .toMany = derivation else { return nil }
                return "\(quoted(attribute.name)) = \(value(derivation, of: entity, in: model))"
            }
            guard !assignments.isEmpty else { continue }
            result.append("UPDATE \(quoted(entity.tableName)) SET \(assignments.joined(separator: ", ")) WHERE _id IN (SELECT row FROM \(pendingTable) WHERE entity = \(SearchIndex.sqlText(entity.name)))")
        }
        if !result.isEmpty { result.append("DELETE FROM \(pendingTable)") }
        return result
    }

    /// The value of `derivation` for the row of `entity` being updated (its table's name
    /// qualifies its columns). A to-many's members are the rows of its destination and of the
    /// destination's subentities.
    static func value(_ derivation: Derivation, of entity: EntityDescription, in model: ObjectModel) -> String {
        let own = quoted(entity.tableName)
        switch derivation {
        case .function(let function, let attribute):
            let column = "\(own).\(quoted(attribute))"
            switch function {
            case .lowercase: return "\(lowercaseFunction)(\(column))"
            case .uppercase: return "\(uppercaseFunction)(\(column))"
            case .canonical:
                let options = ObjectPredicate.StringOptions([.caseInsensitive, .diacriticInsensitive]).rawValue
                return "\(PredicateFunctions.foldFunctionName)(\(column), \(options))"
            }
        case .toOne(let name, let attribute):
            guard let r = entity.relationship(named: name) else { return "NULL" }
            let destination = quoted(model.entities[r.destinationIndex].tableName)
            switch r.storage {
            case .foreignKey(let column):
                return "(SELECT t.\(quoted(attribute)) FROM \(destination) AS t WHERE t._id = \(own).\(quoted(column)))"
            case .inverseForeignKey(let column, _):
                return "(SELECT t.\(quoted(attribute)) FROM \(destination) AS t WHERE t.\(quoted(column)) = \(own)._id)"
            case .joinTable:
                return "NULL"
            }
        case .toMany(let aggregate, let name, let attribute):
            guard let r = entity.relationship(named: name) else { return "NULL" }
            let members = model.entities[r.destinationIndex]
            let destination = quoted(members.tableName)
            let function: String = switch aggregate {
            case .count: "count(*)"
            case .sum: "coalesce(sum(t.\(quoted(attribute ?? ""))), 0)"
            case .min: "min(t.\(quoted(attribute ?? "")))"
            case .max: "max(t.\(quoted(attribute ?? "")))"
            case .avg: "avg(t.\(quoted(attribute ?? "")))"
            }
            switch r.storage {
            case .inverseForeignKey(let column, _):
                let rows = members.restricting("t.\(quoted(column)) = \(own)._id", alias: "t") ?? ""
                return "(SELECT \(function) FROM \(destination) AS t WHERE \(rows))"
            case .joinTable(let join):
                let from = aggregate == .count
                    ? "\(quoted(join.name)) AS j"
                    : "\(quoted(join.name)) AS j JOIN \(destination) AS t ON t._id = j.\(quoted(join.otherColumn))"
                return "(SELECT \(function) FROM \(from) WHERE j.\(quoted(join.ownColumn)) = \(own)._id)"
            case .foreignKey:
                return "NULL"
            }
        }
    }

    /// The writes that can change `derivation`'s value, and which of `entity`'s rows each
    /// affects. In a hierarchy, a write to the entity's table fires only for its kinds' rows,
    /// and a write to a destination's table only for the destination's kinds' rows.
    private static func firings(_ derivation: Derivation, of entity: EntityDescription, in model: ObjectModel) -> [Firing] {
        let own = entity.tableName, ownKinds = entity.kindCondition(alias: "new")
        var result = [Firing(event: "INSERT", table: own, rows: "_id = new._id", when: ownKinds)]
        switch derivation {
        case .function(_, let attribute):
            result.append(Firing(event: "UPDATE OF \(quoted(attribute))", table: own, rows: "_id = new._id", when: ownKinds))
        case .toOne(let name, let attribute):
            guard let r = entity.relationship(named: name) else { return result }
            let target = model.entities[r.destinationIndex], destination = target.tableName
            let newKinds = target.kindCondition(alias: "new"), oldKinds = target.kindCondition(alias: "old")
            switch r.storage {
            case .foreignKey(let column):
                result.append(Firing(event: "UPDATE OF \(quoted(column))", table: own, rows: "_id = new._id", when: ownKinds))
                result.append(Firing(event: "INSERT", table: destination, rows: "\(quoted(column)) = new._id", when: newKinds))
                result.append(Firing(event: "UPDATE OF \(quoted(attribute))", table: destination, rows: "\(quoted(column)) = new._id", when: newKinds))
            case .inverseForeignKey(let column, _):
                result.append(Firing(event: "INSERT", table: destination, rows: "_id = new.\(quoted(column))", when: newKinds))
                result.append(Firing(event: "DELETE", table: destination, rows: "_id = old.\(quoted(column))", when: oldKinds))
                result.append(Firing(event: "UPDATE OF \(quoted(column)), \(quoted(attribute))", table: destination,
                                     rows: "_id IN (old.\(quoted(column)), new.\(quoted(column)))", when: newKinds))
            case .joinTable:
                break
            }
        case .toMany(_, let name, let attribute):
            guard let r = entity.relationship(named: name) else { return result }
            let target = model.entities[r.destinationIndex], destination = target.tableName
            let newKinds = target.kindCondition(alias: "new"), oldKinds = target.kindCondition(alias: "old")
            switch r.storage {
            case .inverseForeignKey(let column, _):
                let columns = ([column] + (attribute.map { [$0] } ?? [])).map(quoted).joined(separator: ", ")
                result.append(Firing(event: "INSERT", table: destination, rows: "_id = new.\(quoted(column))", when: newKinds))
                result.append(Firing(event: "DELETE", table: destination, rows: "_id = old.\(quoted(column))", when: oldKinds))
                result.append(Firing(event: "UPDATE OF \(columns)", table: destination,
                                     rows: "_id IN (old.\(quoted(column)), new.\(quoted(column)))", when: newKinds))
            case .joinTable(let join):
                result.append(Firing(event: "INSERT", table: join.name, rows: "_id = new.\(quoted(join.ownColumn))"))
                result.append(Firing(event: "DELETE", table: join.name, rows: "_id = old.\(quoted(join.ownColumn))"))
                if let attribute {
                    result.append(Firing(event: "UPDATE OF \(quoted(attribute))", table: destination,
                                         rows: "_id IN (SELECT \(quoted(join.ownColumn)) FROM \(quoted(join.name)) WHERE \(quoted(join.otherColumn)) = new._id)",
                                         when: newKinds))
                }
            case .foreignKey:
                break
            }
        }
        return result
    }
}

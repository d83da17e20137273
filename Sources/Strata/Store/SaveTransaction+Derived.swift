import GRDB
import GRDBSQLite

/// How a write reads back the derived values it changed, for one entity.
struct DerivedRead: Sendable {
    /// The entity's index in the model.
    let entity: Int
    /// The derived attributes' slots, in the order the statement selects them.
    let slots: [Int]
    /// Their types, in the same order.
    let types: [AttributeType]
    /// `SELECT _id, <derived columns> FROM <entity's table> WHERE _id IN (<logged rows>)`: the
    /// log names each row's own entity, so a subentity's rows are read with its own columns,
    /// inherited derived attributes included.
    let sql: String

    init?(_ entity: EntityDescription) {
        let slots = entity.attributes.indices.filter { entity.attributes[$0].isDerived }
        guard !slots.isEmpty, !entity.isAbstract else { return nil }   // an abstract entity has no rows of its own
        self.entity = entity.index
        self.slots = slots
        self.types = slots.map { entity.attributes[$0].type }
        let columns = slots.map { quoted(entity.attributes[$0].name) }.joined(separator: ", ")
        sql = "SELECT _id, \(columns) FROM \(quoted(entity.tableName)) WHERE _id IN (SELECT row FROM \(DerivedColumns.changesTable) WHERE entity = \(SearchIndex.sqlText(entity.name)))"
    }

    /// Recomputes the aggregates of the rows marked pending (`flush`, from
    /// ``DerivedColumns/flushStatements(_:)``), then returns the derived values the triggers
    /// logged as changed since the log was last emptied, by row, and empties the log. Runs last
    /// in a write's transaction.
    static func drain(_ reads: [DerivedRead], flush: [String], model: ObjectModel, _ db: Database) throws -> [ObjectID: [(slot: Int, value: PropertyValue)]] {
        for statement in flush { try db.cachedStatement(sql: statement).execute() }
        var result: [ObjectID: [(slot: Int, value: PropertyValue)]] = [:]
        for read in reads {
            let entity = model.entities[read.entity]
            let statement = try db.cachedStatement(sql: read.sql)
            try RawStatement.forEachRow(statement, db) { handle in
                let id = ObjectID(entity: entity, key: sqlite3_column_int64(handle, 0))
                var values: [(slot: Int, value: PropertyValue)] = []
                for (n, slot) in read.slots.enumerated() {
                    values.append((slot, RawStatement.value(handle, Int32(n + 1), type: read.types[n])))
                }
                result[id] = values
            }
        }
        try db.execute(sql: "DELETE FROM \(DerivedColumns.changesTable)")
        return result
    }

    /// Drains the log for a batch request and reports the derived values in `changes` (as
    /// updates of the rows that are not deleted or new); does nothing for a model without
    /// derived attributes.
    static func drain(model: ObjectModel, into changes: inout ChangeSet, _ db: Database) throws {
        let reads = model.entities.compactMap(DerivedRead.init)
        guard !reads.isEmpty else { return }
        changes.addDerivedValues(try drain(reads, flush: DerivedColumns.flushStatements(model), model: model, db))
    }
}

extension ChangeSet {
    /// Reports derived values computed by the store as updates (not for inserted or deleted
    /// objects: a change set's inserts carry no values).
    mutating func addDerivedValues(_ derived: [ObjectID: [(slot: Int, value: PropertyValue)]]) {
        for (id, values) in derived where !inserted.contains(id) && !deleted.contains(id) {
            let attributes = id.entity.attributes
            for (slot, value) in values { updated[id, default: [:]][attributes[slot].name] = value }
        }
    }
}

extension SaveTransaction {
    /// Reads the derived values that this save's writes changed into `outcome`.
    func readDerivedValues(_ db: Database, _ outcome: inout SaveOutcome) throws {
        outcome.derived = try DerivedRead.drain(sql.derivedReads, flush: sql.derivedFlush, model: model, db)
    }
}

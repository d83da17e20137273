import Foundation
import GRDB
import GRDBSQLite

/// Reading and pruning the store's change history (``StoreOptions/recordsHistory``).
extension StoreCoordinator {
    /// The transactions recorded after `token` (all of them for `nil`), oldest first, at most
    /// `limit` of them. Changes to entities the model no longer has (a migration removed them)
    /// are left out.
    ///
    /// - Throws: `.invalidRequest` when the store does not record history.
    ///
    /// For example:
    /// ```swift
    /// for transaction in try coordinator.history(after: lastToken) {
    ///     for change in transaction.changes where change.operation == .insert { print(change.objectID) }
    ///     lastToken = transaction.token
    /// }
    /// ```
    public func history(after token: HistoryToken?, limit: Int? = nil) throws(StrataError) -> [HistoryTransaction] {
        try requireHistory()
        return try read { db in try HistoryReader(model: model).transactions(after: token?.rawValue ?? 0, limit: limit, db) }
    }

    /// The token of the last recorded transaction (`nil` while the history is empty): a reader
    /// that starts now keeps it and later asks for what came after.
    ///
    /// For example:
    /// ```swift
    /// var lastToken = try coordinator.currentHistoryToken()
    /// ```
    public func currentHistoryToken() throws(StrataError) -> HistoryToken? {
        try requireHistory()
        return try read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM \(HistoryTables.transactions)").map(HistoryToken.init(rawValue:))
        }
    }

    /// Deletes the transactions up to and including `token` (once every reader has processed
    /// them). Tokens of later transactions stay valid.
    ///
    /// For example:
    /// ```swift
    /// try coordinator.deleteHistory(through: processedToken)
    /// ```
    public func deleteHistory(through token: HistoryToken) throws(StrataError) {
        try requireHistory()
        do {
            try write { db in
                try db.execute(sql: "DELETE FROM \(HistoryTables.transactions) WHERE id <= ?", arguments: [token.rawValue])
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    private func requireHistory() throws(StrataError) {
        guard recordsHistory else {
            throw StrataError(.invalidRequest, "The store does not record history: open it with StoreOptions.recordsHistory = true.")
        }
    }
}

/// Reads history rows back into values.
private struct HistoryReader {
    let model: ObjectModel

    func transactions(after first: Int64, limit: Int?, _ db: Database) throws -> [HistoryTransaction] {
        var heads: [(id: Int64, timestamp: Double, kind: String, author: String?, context: String?)] = []
        let rows = try Row.fetchCursor(db, sql: "SELECT id, timestamp, kind, author, context FROM \(HistoryTables.transactions) WHERE id > ? ORDER BY id LIMIT ?",
                                       arguments: [first, limit ?? -1])
        while let row = try rows.next() { heads.append((row[0], row[1], row[2], row[3], row[4])) }
        guard let last = heads.last?.id else { return [] }
        let range: StatementArguments = [first, last]
        var changesByTransaction: [Int64: [(id: Int64, change: PartialChange)]] = [:]
        let changeRows = try Row.fetchCursor(db, sql: "SELECT id, transaction_id, entity, key, operation, keys FROM \(HistoryTables.changes) WHERE transaction_id > ? AND transaction_id <= ? ORDER BY id", arguments: range)
        var changeIDs: [Int64: (transaction: Int64, index: Int)] = [:]
        while let row = try changeRows.next() {
            guard let entity = model.entity(named: row[2]), let operation = HistoryChange.Operation(rawValue: row[4]) else { continue }
            let keys: String? = row[5]
            let change = PartialChange(objectID: ObjectID(entity: entity, key: row[3]), operation: operation,
                                       updatedKeys: Set((keys ?? "").split(separator: ",").map(String.init)))
            let transaction: Int64 = row[1]
            changeIDs[row[0]] = (transaction, changesByTransaction[transaction, default: []].count)
            changesByTransaction[transaction, default: []].append((row[0], change))
        }
        let memberRows = try Row.fetchCursor(db, sql: "SELECT m.change_id, m.relationship, m.member, m.added FROM \(HistoryTables.members) m JOIN \(HistoryTables.changes) c ON c.id = m.change_id WHERE c.transaction_id > ? AND c.transaction_id <= ? ORDER BY m.rowid", arguments: range)
        while let row = try memberRows.next() {
            guard let place = changeIDs[row[0]] else { continue }
            let name: String = row[1]
            let owner = changesByTransaction[place.transaction]![place.index].change.objectID.entity
            guard case .relationship(let slot)? = owner.propertyIndex[name] else { continue }
            let member = ObjectID(entity: model.entities[owner.relationships[slot].destinationIndex], key: row[2])
            if row[3] as Bool {
                changesByTransaction[place.transaction]![place.index].change.added[name, default: []].append(member)
            } else {
                changesByTransaction[place.transaction]![place.index].change.removed[name, default: []].append(member)
            }
        }
        let tombstones = try db.cachedStatement(sql: "SELECT t.change_id, t.attribute, t.value FROM \(HistoryTables.tombstones) t JOIN \(HistoryTables.changes) c ON c.id = t.change_id WHERE c.transaction_id > ? AND c.transaction_id <= ? ORDER BY t.rowid")
        tombstones.setUncheckedArguments(range)
        try RawStatement.forEachRow(tombstones, db) { handle in
            guard let place = changeIDs[sqlite3_column_int64(handle, 0)], let name = RawStatement.text(handle, 1) else { return }
            let entity = changesByTransaction[place.transaction]![place.index].change.objectID.entity
            guard case .attribute(let i)? = entity.propertyIndex[name] else { return }
            changesByTransaction[place.transaction]![place.index].change.tombstone[name] = RawStatement.value(handle, 2, type: entity.attributes[i].type)
        }
        return heads.map { head in
            HistoryTransaction(token: HistoryToken(rawValue: head.id), timestamp: Date(timeIntervalSince1970: head.timestamp),
                               kind: HistoryTransaction.Kind(rawValue: head.kind) ?? .save, author: head.author, contextName: head.context,
                               changes: (changesByTransaction[head.id] ?? []).map(\.change.finished))
        }
    }
}

/// A change while its members and tombstone are read.
private struct PartialChange {
    var objectID: ObjectID
    var operation: HistoryChange.Operation
    var updatedKeys: Set<String>
    var added: [String: [ObjectID]] = [:]
    var removed: [String: [ObjectID]] = [:]
    var tombstone: [String: PropertyValue] = [:]

    var finished: HistoryChange {
        HistoryChange(objectID: objectID, operation: operation, updatedKeys: updatedKeys,
                      addedMembers: added, removedMembers: removed, tombstone: tombstone)
    }
}

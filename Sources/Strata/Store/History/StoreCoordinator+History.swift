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
            try write(changedRows: { _ in [] }) { db in   // history only: no row of an entity
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
        var changes: [Int64: [PartialChange?]] = [:]
        let rows = try Row.fetchCursor(db, sql: "SELECT id, timestamp, kind, author, context, changes FROM \(HistoryTables.transactions) WHERE id > ? ORDER BY id LIMIT ?",
                                       arguments: [first, limit ?? -1])
        while let row = try rows.next() {
            let id: Int64 = row[0]
            let blob: Data = row[5]
            guard let entries = HistoryPayload.entries(of: [UInt8](blob)), HistoryTransaction.Kind(rawValue: row[2]) != nil else {
                throw StrataError(.corruptStore, "History transaction \(id) cannot be read: its changes are damaged or of a later format.")
            }
            heads.append((id, row[1], row[2], row[3], row[4]))   // its kind was checked above
            // Entities the model no longer has (a migration removed them) stay as gaps, so that
            // members and tombstones still find their change by position.
            changes[id] = entries.map { entry in
                guard let entity = model.entity(named: entry.entity) else { return nil }
                return PartialChange(objectID: ObjectID(entity: entity, key: entry.key), operation: entry.operation, updatedKeys: Set(entry.keys))
            }
        }
        guard let last = heads.last?.id else { return [] }
        let range: StatementArguments = [first, last]
        let memberRows = try Row.fetchCursor(db, sql: "SELECT transaction_id, change_index, relationship, member, added FROM \(HistoryTables.members) WHERE transaction_id > ? AND transaction_id <= ? ORDER BY rowid", arguments: range)
        while let row = try memberRows.next() {
            let transaction: Int64 = row[0], index: Int = row[1], name: String = row[2]
            guard let list = changes[transaction], index >= 0, index < list.count, let change = list[index],
                  case .relationship(let slot)? = change.objectID.entity.propertyIndex[name] else { continue }
            let member = try memberID(model.entities[change.objectID.entity.relationships[slot].destinationIndex], key: row[3], in: list, db)
            if row[4] as Bool {
                changes[transaction]![index]!.added[name, default: []].append(member)
            } else {
                changes[transaction]![index]!.removed[name, default: []].append(member)
            }
        }
        let tombstones = try db.cachedStatement(sql: "SELECT transaction_id, change_index, attribute, value FROM \(HistoryTables.tombstones) WHERE transaction_id > ? AND transaction_id <= ? ORDER BY rowid")
        tombstones.setUncheckedArguments(range)
        try RawStatement.forEachRow(tombstones, db) { handle in
            let transaction = sqlite3_column_int64(handle, 0), index = Int(sqlite3_column_int64(handle, 1))
            guard let list = changes[transaction], index >= 0, index < list.count, let change = list[index],
                  let name = RawStatement.text(handle, 2), case .attribute(let i)? = change.objectID.entity.propertyIndex[name] else { return }
            changes[transaction]![index]!.tombstone[name] = RawStatement.value(handle, 3, type: change.objectID.entity.attributes[i].type)
        }
        return heads.map { head in
            HistoryTransaction(token: HistoryToken(rawValue: head.id), timestamp: Date(timeIntervalSince1970: head.timestamp),
                               kind: HistoryTransaction.Kind(rawValue: head.kind) ?? .save, author: head.author, contextName: head.context,
                               changes: (changes[head.id] ?? []).compactMap { $0?.finished })
        }
    }
}

extension HistoryReader {
    /// The ID of a relationship member: members are recorded by key, so for a destination
    /// with subentities the member's own entity is the one its transaction changed under that
    /// key (an insert or a delete in the same save), else its row's `_entity` now. A member
    /// deleted by a later transaction and not changed in this one names the destination.
    func memberID(_ destination: EntityDescription, key: Int64, in changes: [PartialChange?], _ db: Database) throws -> ObjectID {
        guard destination.hierarchy.kindIndexes.count > 1 else { return ObjectID(entity: destination, key: key) }
        if let changed = changes.lazy.compactMap({ $0?.objectID }).first(where: { $0.key == key && $0.entity.isKind(of: destination) }) {
            return changed
        }
        let name = try String.fetchOne(db, sql: "SELECT \(EntityHierarchy.kindColumn) FROM \(quoted(destination.tableName)) WHERE _id = ?", arguments: [key])
        return ObjectID(entity: destination.kind(named: name, in: model), key: key)
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

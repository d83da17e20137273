import Foundation
import GRDB
import GRDBSQLite

/// Collects one transaction's history record, then writes it inside that transaction (so a
/// save and its record commit or roll back together): one row for the transaction, plus rows
/// for many-to-many members and tombstones.
struct HistoryWriter {
    private var payload = HistoryPayload()
    private var members: [(change: Int, relationship: String, key: Int64, added: Bool)] = []
    private var tombstones: [(change: Int, attribute: String, value: PropertyValue)] = []

    /// Records that the row `key` of `entity` was inserted, updated (`keys` written) or deleted;
    /// returns the change's position for its members and tombstone.
    @discardableResult
    mutating func change(_ entity: EntityDescription, key: Int64, _ operation: HistoryChange.Operation, keys: [String] = []) -> Int {
        payload.append(entity: entity.name, key: key, operation, keys: keys)
    }

    /// Records a many-to-many member added or removed by change `change`.
    mutating func member(of change: Int, relationship: String, key: Int64, added: Bool) {
        members.append((change, relationship, key, added))
    }

    /// Keeps a deleted object's attribute value (its stored form, read back by its type).
    mutating func tombstone(of change: Int, attribute: String, value: PropertyValue) {
        tombstones.append((change, attribute, value))
    }

    /// Writes the record (nothing when no change was recorded).
    func write(_ kind: HistoryTransaction.Kind, author: String?, context: String?, _ db: Database) throws {
        guard payload.count > 0 else { return }
        try db.cachedStatement(sql: "INSERT INTO \(HistoryTables.transactions) (timestamp, kind, author, context, changes) VALUES (?, ?, ?, ?, ?)")
            .execute(arguments: [Date().timeIntervalSince1970, kind.rawValue, author, context, Data(payload.bytes)])
        let transaction = db.lastInsertedRowID
        for member in members {
            try db.cachedStatement(sql: "INSERT INTO \(HistoryTables.members) (transaction_id, change_index, relationship, member, added) VALUES (?, ?, ?, ?, ?)")
                .execute(arguments: [transaction, member.change, member.relationship, member.key, member.added])
        }
        for tombstone in tombstones {
            let statement = try db.cachedStatement(sql: "INSERT INTO \(HistoryTables.tombstones) (transaction_id, change_index, attribute, value) VALUES (?, ?, ?, ?)")
            let handle = statement.sqliteStatement
            sqlite3_bind_int64(handle, 1, transaction)
            sqlite3_bind_int64(handle, 2, Int64(tombstone.change))
            RawStatement.bindText(tombstone.attribute, handle, 3)
            RawStatement.bind(tombstone.value, to: handle, at: 4)
            try RawStatement.execute(statement, db)
        }
    }

    /// Records what a batch request changed (from its change set).
    static func record(_ changes: ChangeSet, kind: HistoryTransaction.Kind, _ db: Database) throws {
        var writer = HistoryWriter()
        for id in changes.inserted.sorted(by: Self.order) { writer.change(id.entity, key: id.key, .insert) }
        for (id, values) in changes.updated.sorted(by: { Self.order($0.key, $1.key) }) {
            writer.change(id.entity, key: id.key, .update, keys: values.keys.sorted())
        }
        for id in changes.deleted.sorted(by: Self.order) { writer.change(id.entity, key: id.key, .delete) }
        try writer.write(kind, author: nil, context: nil, db)
    }

    /// A stable order of IDs (entity, then key), so the history reads the same every time.
    static func order(_ a: ObjectID, _ b: ObjectID) -> Bool {
        (a.entity.index, a.key) < (b.entity.index, b.key)
    }
}

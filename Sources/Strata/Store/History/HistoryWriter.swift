import Foundation
import GRDB
import GRDBSQLite

/// Writes one transaction's history rows, inside that transaction (so a save and its record
/// commit or roll back together).
struct HistoryWriter {
    private let db: Database
    private let transactionID: Int64

    /// Starts the record of a transaction of `kind`.
    init(_ kind: HistoryTransaction.Kind, author: String?, context: String?, _ db: Database) throws {
        self.db = db
        try db.cachedStatement(sql: "INSERT INTO \(HistoryTables.transactions) (timestamp, kind, author, context) VALUES (?, ?, ?, ?)")
            .execute(arguments: [Date().timeIntervalSince1970, kind.rawValue, author, context])
        transactionID = db.lastInsertedRowID
    }

    /// Records that the row `key` of `entity` was inserted, updated (`keys` written) or deleted;
    /// returns the change's row for its members and tombstone.
    @discardableResult
    func change(_ entity: EntityDescription, key: Int64, _ operation: HistoryChange.Operation, keys: [String] = []) throws -> Int64 {
        let statement = try db.cachedStatement(sql: "INSERT INTO \(HistoryTables.changes) (transaction_id, entity, key, operation, keys) VALUES (?, ?, ?, ?, ?)")
        let handle = statement.sqliteStatement
        sqlite3_bind_int64(handle, 1, transactionID)
        RawStatement.bindText(entity.name, handle, 2)
        sqlite3_bind_int64(handle, 3, key)
        sqlite3_bind_int64(handle, 4, Int64(operation.rawValue))
        if keys.isEmpty { sqlite3_bind_null(handle, 5) } else { RawStatement.bindText(keys.joined(separator: ","), handle, 5) }
        try RawStatement.execute(statement, db)
        return db.lastInsertedRowID
    }

    /// Records a many-to-many member added or removed by change `changeID`.
    func member(of changeID: Int64, relationship: String, key: Int64, added: Bool) throws {
        try db.cachedStatement(sql: "INSERT INTO \(HistoryTables.members) (change_id, relationship, member, added) VALUES (?, ?, ?, ?)")
            .execute(arguments: [changeID, relationship, key, added])
    }

    /// Keeps a deleted object's attribute value (its stored form, read back by its type).
    func tombstone(of changeID: Int64, attribute: String, value: PropertyValue) throws {
        let statement = try db.cachedStatement(sql: "INSERT INTO \(HistoryTables.tombstones) (change_id, attribute, value) VALUES (?, ?, ?)")
        let handle = statement.sqliteStatement
        sqlite3_bind_int64(handle, 1, changeID)
        RawStatement.bindText(attribute, handle, 2)
        RawStatement.bind(value, to: handle, at: 3)
        try RawStatement.execute(statement, db)
    }

    /// Records what a batch request changed (from its change set).
    static func record(_ changes: ChangeSet, kind: HistoryTransaction.Kind, _ db: Database) throws {
        guard !changes.isEmpty else { return }
        let writer = try HistoryWriter(kind, author: nil, context: nil, db)
        for id in changes.inserted.sorted(by: Self.order) { try writer.change(id.entity, key: id.key, .insert) }
        for (id, values) in changes.updated.sorted(by: { Self.order($0.key, $1.key) }) {
            try writer.change(id.entity, key: id.key, .update, keys: values.keys.sorted())
        }
        for id in changes.deleted.sorted(by: Self.order) { try writer.change(id.entity, key: id.key, .delete) }
    }

    /// A stable order of IDs (entity, then key), so the history reads the same every time.
    static func order(_ a: ObjectID, _ b: ObjectID) -> Bool {
        (a.entity.index, a.key) < (b.entity.index, b.key)
    }
}

import GRDB

/// The tables of a store's change history (see ``StoreOptions/recordsHistory``): one row per
/// transaction with its changes packed (``HistoryPayload``), and rows for the many-to-many
/// members added or removed and the unique values of deleted objects (tombstones), which
/// name their change by its position in the transaction.
enum HistoryTables {
    static let transactions = "_strata_history"
    static let members = "_strata_history_members"
    static let tombstones = "_strata_history_tombstones"
    /// The metadata key that turns recording on for every coordinator on the file.
    static let enabledKey = "recordsHistory"

    static let createStatements = [
        "CREATE TABLE IF NOT EXISTS \(transactions) (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL, kind TEXT NOT NULL, author TEXT, context TEXT, changes BLOB NOT NULL)",
        "CREATE TABLE IF NOT EXISTS \(members) (transaction_id INTEGER NOT NULL REFERENCES \(transactions)(id) ON DELETE CASCADE, change_index INTEGER NOT NULL, relationship TEXT NOT NULL, member INTEGER NOT NULL, added INTEGER NOT NULL)",
        "CREATE INDEX IF NOT EXISTS \(members)_transaction ON \(members)(transaction_id)",
        "CREATE TABLE IF NOT EXISTS \(tombstones) (transaction_id INTEGER NOT NULL REFERENCES \(transactions)(id) ON DELETE CASCADE, change_index INTEGER NOT NULL, attribute TEXT NOT NULL, value)",
        "CREATE INDEX IF NOT EXISTS \(tombstones)_transaction ON \(tombstones)(transaction_id)",
    ]

    /// Whether the store records history: turned on (for good, for every coordinator on the
    /// file) when `requested`, or because some coordinator turned it on before.
    static func prepare(_ database: any DatabaseWriter, requested: Bool) throws -> Bool {
        let enabled = try database.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM \(StoreSchema.metadataTable) WHERE key = ?", arguments: [enabledKey]) == "1"
        }
        if enabled || !requested { return enabled }
        try database.write { db in
            for statement in createStatements { try db.execute(sql: statement) }
            try db.execute(sql: "INSERT OR REPLACE INTO \(StoreSchema.metadataTable) (key, value) VALUES (?, '1')", arguments: [enabledKey])
        }
        return true
    }
}

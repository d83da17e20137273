import GRDB

/// The tables of a store's change history (see ``StoreOptions/recordsHistory``): one row per
/// transaction, one per object it changed, and for those the many-to-many members added or
/// removed and the unique values of deleted objects (tombstones).
enum HistoryTables {
    static let transactions = "_strata_history"
    static let changes = "_strata_history_changes"
    static let members = "_strata_history_members"
    static let tombstones = "_strata_history_tombstones"
    /// The metadata key that turns recording on for every coordinator on the file.
    static let enabledKey = "recordsHistory"

    static let createStatements = [
        "CREATE TABLE IF NOT EXISTS \(transactions) (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL NOT NULL, kind TEXT NOT NULL, author TEXT, context TEXT)",
        "CREATE TABLE IF NOT EXISTS \(changes) (id INTEGER PRIMARY KEY AUTOINCREMENT, transaction_id INTEGER NOT NULL REFERENCES \(transactions)(id) ON DELETE CASCADE, entity TEXT NOT NULL, key INTEGER NOT NULL, operation INTEGER NOT NULL, keys TEXT)",
        "CREATE INDEX IF NOT EXISTS \(changes)_transaction ON \(changes)(transaction_id)",
        "CREATE TABLE IF NOT EXISTS \(members) (change_id INTEGER NOT NULL REFERENCES \(changes)(id) ON DELETE CASCADE, relationship TEXT NOT NULL, member INTEGER NOT NULL, added INTEGER NOT NULL)",
        "CREATE INDEX IF NOT EXISTS \(members)_change ON \(members)(change_id)",
        "CREATE TABLE IF NOT EXISTS \(tombstones) (change_id INTEGER NOT NULL REFERENCES \(changes)(id) ON DELETE CASCADE, attribute TEXT NOT NULL, value)",
        "CREATE INDEX IF NOT EXISTS \(tombstones)_change ON \(tombstones)(change_id)",
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

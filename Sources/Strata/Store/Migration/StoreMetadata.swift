import Foundation
import GRDB

/// What a store's `_strata_metadata` table says about it.
struct StoreMetadata {
    /// The store's UUID.
    var identifier: UUID
    /// The version hash of the model it was last written with.
    var modelHash: String
    /// That model's schema as JSON (``StoredSchema``); nil for stores written before Strata
    /// recorded it.
    var schemaJSON: String?

    static let hashKey = "modelHash"
    static let schemaKey = "modelSchema"
    static let identifierKey = "storeUUID"
    static let formatKey = "formatVersion"

    /// Reads the metadata of the store open in `db`.
    static func read(_ db: Database, path: String) throws(StrataError) -> StoreMetadata {
        let values: [String: String]
        do {
            values = Dictionary(
                try Row.fetchAll(db, sql: "SELECT key, value FROM \(StoreSchema.metadataTable)").map { ($0["key"] as String, $0["value"] as String) },
                uniquingKeysWith: { a, _ in a })
        } catch { throw StoreOpener.classify(error, path: path) }
        guard let hash = values[hashKey], let uuidText = values[identifierKey], let uuid = UUID(uuidString: uuidText) else {
            throw StrataError(.corruptStore, "\(path) has a damaged Strata metadata table.")
        }
        return StoreMetadata(identifier: uuid, modelHash: hash, schemaJSON: values[schemaKey])
    }

    /// Records `model` as the store's model: its hash and its schema.
    static func write(_ model: ObjectModel, in db: Database) throws {
        let upsert = "INSERT OR REPLACE INTO \(StoreSchema.metadataTable) (key, value) VALUES (?, ?)"
        try db.execute(sql: upsert, arguments: [hashKey, model.versionHash])
        try db.execute(sql: upsert, arguments: [schemaKey, StoredSchema(model).json])
    }
}

import Foundation
import GRDB

/// Checks a file before it is opened for writing, so that a foreign, corrupt or mismatched
/// file is reported as a typed error and left exactly as it was.
enum StoreOpener {
    /// What the file holds.
    enum Contents: Equatable {
        /// No file, an empty file, or a SQLite database with no tables: a new store.
        case empty
        /// A Strata store written with this model.
        case store(identifier: UUID)
    }

    /// Reads what the file at `url` holds; waits up to `busyTimeout` seconds for a connection
    /// that is writing it (another process creating the same new store, say).
    static func inspect(_ url: URL, model: ObjectModel, busyTimeout: Double) throws(StrataError) -> Contents {
        let path = url.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return .empty }
        if (attributes[.size] as? NSNumber)?.intValue == 0 { return .empty }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StrataError(.storeFailure, "Cannot read \(path).")
        }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        guard header == Data("SQLite format 3\0".utf8) else {
            throw StrataError(.notAStore, "\(path) is not a SQLite database.")
        }
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db throws(StrataError) -> Contents in
                let tables: [String]
                do { tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
                catch { throw classify(error, path: path) }
                if tables.isEmpty { return .empty }
                guard tables.contains(StoreSchema.metadataTable) else {
                    throw StrataError(.notAStore, "\(path) is a SQLite database, but not a Strata store (tables: \(tables.prefix(5).joined(separator: ", "))).")
                }
                return .store(identifier: try checkMetadata(db, model: model, path: path))
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw classify(error, path: path)
        }
    }

    /// Reads the metadata table of the store open in `db`: its identifier, after checking that
    /// it was written with `model`.
    static func checkMetadata(_ db: Database, model: ObjectModel, path: String) throws(StrataError) -> UUID {
        let metadata: [String: String]
        do {
            metadata = Dictionary(
                try Row.fetchAll(db, sql: "SELECT key, value FROM \(StoreSchema.metadataTable)").map { ($0["key"] as String, $0["value"] as String) },
                uniquingKeysWith: { a, _ in a })
        } catch { throw classify(error, path: path) }
        guard let hash = metadata["modelHash"], let uuidText = metadata["storeUUID"], let uuid = UUID(uuidString: uuidText) else {
            throw StrataError(.corruptStore, "\(path) has a damaged Strata metadata table.")
        }
        guard hash == model.versionHash else {
            throw StrataError(.modelMismatch, "\(path) was written with model \(hash); this model is \(model.versionHash). Migrate the store or open it with its own model.")
        }
        return uuid
    }

    /// Maps a SQLite failure met while inspecting a file to a typed error.
    static func classify(_ error: any Error, path: String) -> StrataError {
        if let db = error as? DatabaseError, db.resultCode == .SQLITE_CORRUPT || db.resultCode == .SQLITE_NOTADB {
            return StrataError(.corruptStore, "\(path) is a damaged SQLite database.", underlying: db)
        }
        return StrataError(.storeFailure, "\(path) could not be read: \(error)", underlying: error)
    }
}

import Foundation
import GRDB

/// Checks a file before it is opened for writing, so that a foreign, corrupt or mismatched
/// file — or one whose migration would be refused — is reported as a typed error and left
/// exactly as it was.
enum StoreOpener {
    /// What the file holds.
    enum Contents: Equatable {
        /// No file, an empty file, or a SQLite database with no tables: a new store.
        case empty
        /// A Strata store written with this model; `recordsSchema` is false for a store written
        /// before Strata recorded its model's schema (it is recorded on open).
        case store(identifier: UUID, recordsSchema: Bool)
        /// A Strata store written with another model, which a lightweight migration can bring
        /// to this one.
        case needsMigration(identifier: UUID)
    }

    /// Reads what the file at `url` holds; waits up to `busyTimeout` seconds for a connection
    /// that is writing it (another process creating the same new store, say).
    static func inspect(_ url: URL, model: ObjectModel, options: StoreOptions) throws(StrataError) -> Contents {
        let busyTimeout = options.busyTimeout
        let path = url.path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return .empty }  // stat(2): no descriptor
        if (attributes[.size] as? NSNumber)?.intValue == 0 { return .empty }
        // The file is read through SQLite only, never with a descriptor of our own: closing any
        // descriptor on the file drops every POSIX lock this process holds on it, including the
        // shared lock of each open SQLite connection (another coordinator on the same file, or
        // this one's pool when a second inspection follows a lost creation race). Another
        // process closing its last connection then believes it is the last one, checkpoints and
        // deletes the -wal that this process still appends to: its later commits vanish
        // (docs/reliability.md, "Several processes"). SQLite's own descriptors are safe: it
        // keeps a closed one open until the process's locks on the file are released.
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        do {
            let queue = try DatabaseQueue(path: path, configuration: configuration)
            defer { try? queue.close() }
            return try queue.read { db throws(StrataError) -> Contents in
                let tables: [String]
                do { tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
                catch { throw refusal(error, path: path) }
                if tables.isEmpty { return .empty }
                guard tables.contains(StoreSchema.metadataTable) else {
                    throw StrataError(.notAStore, "\(path) is a SQLite database, but not a Strata store (tables: \(tables.prefix(5).joined(separator: ", "))).")
                }
                let metadata = try StoreMetadata.read(db, path: path)
                switch try StoreMigrator.decide(db, metadata: metadata, model: model, migratesAutomatically: options.migratesAutomatically, path: path) {
                case .current: return .store(identifier: metadata.identifier, recordsSchema: metadata.schemaJSON != nil)
                case .migrate: return .needsMigration(identifier: metadata.identifier)
                }
            }
        } catch let error as StrataError {
            throw error
        } catch {
            throw refusal(error, path: path)
        }
    }

    /// The error for a file SQLite could not read at `path`: `.notAStore` when it does not even
    /// start with SQLite's magic header, else what ``classify(_:path:)`` says.
    ///
    /// Only here, once SQLite has refused the file, are its first bytes read with a descriptor
    /// of our own: no connection of this process can be using a file SQLite calls "not a
    /// database", so closing that descriptor drops no lock that matters.
    private static func refusal(_ error: any Error, path: String) -> StrataError {
        if let db = error as? DatabaseError, db.resultCode == .SQLITE_NOTADB, let handle = FileHandle(forReadingAtPath: path) {
            let header = (try? handle.read(upToCount: 16)) ?? Data()
            try? handle.close()
            if header != Data("SQLite format 3\0".utf8) {
                return StrataError(.notAStore, "\(path) is not a SQLite database.", underlying: db)
            }
        }
        return classify(error, path: path)
    }

    /// Maps a failure met while inspecting, creating or opening the file at `path` to a typed
    /// error: damaged, read-only (the file, or the folder where SQLite keeps `-wal` and `-shm`),
    /// full, or else `.storeFailure`.
    static func classify(_ error: any Error, path: String) -> StrataError {
        if let error = error as? StrataError { return error }
        let folder = (path as NSString).deletingLastPathComponent
        let writable = FileManager.default.isWritableFile(atPath: folder.isEmpty ? "." : folder)
            && (!FileManager.default.fileExists(atPath: path) || FileManager.default.isWritableFile(atPath: path))
        if let db = error as? DatabaseError {
            switch db.resultCode {
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                return StrataError(.corruptStore, "\(path) is a damaged SQLite database.", underlying: db)
            case .SQLITE_FULL:
                return StrataError(.storeFull, "\(path) cannot grow: the disk is full.", underlying: db)
            case .SQLITE_READONLY, .SQLITE_PERM:
                return StrataError(.readOnlyStore, "\(path) cannot be written: the file or its folder is read-only (SQLite keeps its -wal and -shm files in the folder).", underlying: db)
            case .SQLITE_CANTOPEN where !writable:
                return StrataError(.readOnlyStore, "\(path) cannot be opened for writing: the file or its folder is read-only (SQLite keeps its -wal and -shm files in the folder).", underlying: db)
            default:
                break
            }
        }
        if !writable, let cocoa = error as? CocoaError, cocoa.code == .fileWriteNoPermission {
            return StrataError(.readOnlyStore, "\(path) cannot be written: \(cocoa.localizedDescription)", underlying: cocoa)
        }
        return StrataError(.storeFailure, "\(path) could not be opened: \(error)", underlying: error)
    }
}

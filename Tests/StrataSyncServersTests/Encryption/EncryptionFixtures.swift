import Foundation
import Strata
@testable import StrataSync
@testable import StrataSyncServers

/// What the encryption tests share: temporary folders, an encrypted cloud with a cheap key
/// derivation, a small model and a device syncing it (namespaced, so other suites of this
/// target can have their own).
enum EncryptionFixtures {
    /// A real temporary directory, removed when the value is released.
    final class Folder: Sendable {
        let url: URL

        init(_ label: String) {
            url = FileManager.default.temporaryDirectory
                .appendingPathComponent("strata-enc-\(label)-\(UUID().uuidString)", isDirectory: true)
            try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        }

        /// The file at `relative` (a `/`-separated cloud path).
        func file(_ relative: String) -> URL { url.appending(path: relative) }

        /// Every regular file below the folder, by relative path, with its bytes.
        func allFiles() throws -> [String: Data] {
            var files: [String: Data] = [:]
            let root = url.resolvingSymlinksInPath().path(percentEncoded: false)
            guard let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey]) else { return files }
            for case let item as URL in walker where (try item.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
                let full = item.resolvingSymlinksInPath().path(percentEncoded: false)
                files[String(full.dropFirst(root.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))] = try Data(contentsOf: item)
            }
            return files
        }

        deinit { try? FileManager.default.removeItem(at: url) }
    }

    /// The inner stores the encryption tests wrap.
    enum Inner: String, CaseIterable, CustomStringConvertible {
        case local, memory
        var description: String { rawValue }

        /// A fresh empty store; the folder (for `.local`) lives as long as the result.
        func make(limits: CloudLimits = .standard) -> (cloud: any CloudFileSystem, folder: Folder?) {
            switch self {
            case .local:
                let folder = Folder("cloud")
                return (LocalCloudFileSystem(rootDirectory: folder.url, limits: limits), folder)
            case .memory:
                return (MemoryCloudFileSystem(limits: limits), nil)
            }
        }
    }

    /// `inner` sealed with `password` at the test cost.
    static func sealed(_ inner: any CloudFileSystem, _ password: String = "correct horse") -> EncryptedCloudFileSystem {
        EncryptedCloudFileSystem(wrapping: inner, password: password, cost: .minimal)
    }

    /// The `SyncError` code `body` threw, or `nil`.
    static func code(_ body: () async throws -> Void) async -> SyncError.Code? {
        do { try await body(); return nil } catch let error as SyncError { return error.code } catch { return nil }
    }

    /// The error `body` threw, or `nil`.
    static func error(_ body: () async throws -> Void) async -> SyncError? {
        do { try await body(); return nil } catch let error as SyncError { return error } catch { return nil }
    }

    static func path(_ text: String) throws -> CloudPath { try CloudPath(text) }

    /// Authors (with a unique identifier) and their books.
    static func model() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Author", attributes: [
                AttributeDescription("uniqueIdentifier", type: .string),
                AttributeDescription("name", type: .string),
            ], relationships: [
                RelationshipDescription("books", destination: "Book", inverse: "author", isToMany: true, deleteRule: .cascade),
            ]),
            EntityDescription("Book", attributes: [
                AttributeDescription("title", type: .string),
                AttributeDescription("rating", type: .int64, defaultValue: .integer(0)),
            ], relationships: [
                RelationshipDescription("author", destination: "Author", inverse: "books"),
            ]),
        ])
    }

    /// One device: its own SQLite store (recording history) in a temporary folder, an edit
    /// context, and an ensemble over a cloud it can be relaunched with.
    final class Device {
        let folder: Folder
        let coordinator: StoreCoordinator
        let context: ObjectContext
        private(set) var ensemble: Ensemble

        init(_ name: String, cloud: any CloudFileSystem, model: ObjectModel) async throws {
            folder = Folder("device-\(name)")
            var storeOptions = StoreOptions()
            storeOptions.recordsHistory = true
            coordinator = try await StoreCoordinator(model: model, store: .sqlite(folder.url.appending(path: "store.sqlite"), options: storeOptions))
            ensemble = try await Ensemble(identifier: "Notes", coordinator: coordinator, cloudFileSystem: cloud,
                                          globalIdentifiers: .attribute("uniqueIdentifier"))
            context = ObjectContext(.privateQueue, coordinator: coordinator, name: "edits-\(name)")
            context.mergePolicy = .mergeByPropertyObjectTrump
            context.automaticallyMergesChangesFromParent = true
        }

        /// A new ensemble over the same store and state and `cloud`, as a relaunched app makes.
        func relaunch(cloud: any CloudFileSystem) async throws {
            ensemble = try await Ensemble(identifier: "Notes", coordinator: coordinator, cloudFileSystem: cloud,
                                          globalIdentifiers: .attribute("uniqueIdentifier"))
        }

        /// Adds an author with one book and saves.
        func addAuthor(_ id: String, name: String, book: String) async throws {
            let context = self.context
            try await context.perform {
                let author = try context.insert(entityNamed: "Author")
                try author.setValue(id, forKey: "uniqueIdentifier")
                try author.setValue(name, forKey: "name")
                let written = try context.insert(entityNamed: "Book")
                try written.setValue(book, forKey: "title")
                try written.setValue(author, forKey: "author")
                try context.save()
            }
        }

        /// The store's authors and books as sorted lines, read through a fresh context (works
        /// whether or not the ensemble is attached).
        func contents() async throws -> [String] {
            let reader = ObjectContext(.privateQueue, coordinator: coordinator, name: "reader")
            return try await reader.perform {
                var lines: [String] = []
                func text(_ object: ManagedObject?, _ key: String) -> String {
                    guard case .string(let value)? = object?.primitiveValue(forKey: key) else { return "-" }
                    return value
                }
                for author in try reader.fetch(FetchRequest<ManagedObject>(entityName: "Author")) {
                    lines.append("Author \(text(author, "uniqueIdentifier")) \(text(author, "name"))")
                }
                for book in try reader.fetch(FetchRequest<ManagedObject>(entityName: "Book")) {
                    lines.append("Book \(text(book, "title")) by \(text(book.value(forKey: "author") as? ManagedObject, "uniqueIdentifier"))")
                }
                return lines.sorted()
            }
        }
    }
}

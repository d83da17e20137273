import Foundation
import GRDB
import Testing
@testable import Strata

/// Helpers shared by the migration tests: dynamic models, stores on real files, raw reads.
enum Fixture {
    static func model(_ entities: EntityDescription...) throws -> ObjectModel {
        try ObjectModel(entities: entities)
    }

    static func string(_ name: String, optional: Bool = true, default value: PropertyValue = .null, unique: Bool = false,
                       indexed: Bool = false, renamedFrom: String? = nil) -> AttributeDescription {
        AttributeDescription(name, type: .string, isOptional: optional, defaultValue: value, isIndexed: indexed, isUnique: unique,
                             renamingIdentifier: renamedFrom)
    }

    /// Opens `url` with `model` and closes it again.
    static func open(_ url: URL, _ model: ObjectModel, options: StoreOptions = StoreOptions()) async throws {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url, options: options))
        try coordinator.close()
    }

    /// Creates a store at `url` with `model` and batch-inserts `rows` of `entity`.
    static func seed(_ url: URL, _ model: ObjectModel, _ entity: String, _ rows: [[String: PropertyValue]]) async throws {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: entity, objects: rows))
        try coordinator.close()
    }

    /// The objects of `entity` (sorted by primary key) read through a context on `model`.
    static func objects(_ url: URL, _ model: ObjectModel, _ entity: String,
                        _ body: @escaping @Sendable ([ManagedObject]) throws -> Void) async throws {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let objects = try context.fetch(FetchRequest<ManagedObject>(entityName: entity)).sorted { $0.objectID.key < $1.objectID.key }
            try body(objects)
        }
        try coordinator.close()
    }

    /// Runs `sql` on the closed store file and returns its rows.
    static func rows(_ url: URL, _ sql: String) throws -> [Row] {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { try Row.fetchAll($0, sql: sql) }
    }

    /// The names of the tables, or of a table's columns.
    static func tables(_ url: URL) throws -> Set<String> {
        Set(try rows(url, "SELECT name FROM sqlite_master WHERE type = 'table'").map { $0["name"] as String })
    }

    static func columns(_ url: URL, _ table: String) throws -> [String] {
        try rows(url, "SELECT name FROM pragma_table_info('\(table)')").map { $0["name"] as String }
    }

    /// Expects opening `url` with `model` to throw `code`, and the file to stay byte for byte
    /// what it was (and no backup copy to be left). Returns the error.
    @discardableResult
    static func expectRefusal(_ url: URL, _ model: ObjectModel, _ code: StrataError.Code, options: StoreOptions = StoreOptions(),
                              sourceLocation: SourceLocation = #_sourceLocation) async throws -> StrataError? {
        let before = try Data(contentsOf: url)
        var thrown: StrataError?
        do {
            let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url, options: options))
            try coordinator.close()
            Issue.record("opened a store that should be refused with \(code)", sourceLocation: sourceLocation)
        } catch let error as StrataError {
            thrown = error
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a StrataError: \(error)", sourceLocation: sourceLocation)
        }
        #expect(try Data(contentsOf: url) == before, "the file changed", sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: StoreMigrator.backupPath(for: url.path)), sourceLocation: sourceLocation)
        return thrown
    }
}

import Foundation
import GRDB
import Strata

/// `migrate`: opening a store of `--objects` books (with their authors) written by the
/// Sandbox's model with a changed model, so that the open runs a lightweight migration. Each
/// variant starts from a fresh store seeded by batch insert (untimed); the timed part is the
/// open (inspection, backup copy, migration transaction, removing the backup). `open` opens
/// the same store with its own model: the reference every variant's `×raw` divides by.
///
/// For example:
/// ```swift
/// swift run -c release Sandbox --scenario migrate --objects 1000000
/// ```
public struct MigrateScenario: Scenario {
    public static let name = "migrate"
    public static let summary = "open a store of books with a changed model: add an attribute with a default, rename an attribute or entity, add an entity"

    public static let variants = [
        ScenarioVariant(name: "open", usesStack: false, baseline: "open"),
        ScenarioVariant(name: "add-attribute", usesStack: false, baseline: "open"),
        ScenarioVariant(name: "rename-attribute", usesStack: false, baseline: "open"),
        ScenarioVariant(name: "add-entity", usesStack: false, baseline: "open"),
        ScenarioVariant(name: "rename-entity", usesStack: false, baseline: "open"),
    ]

    public init() {}

    /// Every variant starts from every book, with its author, written by the batch insert.
    public func prepare(_ run: ScenarioRun) async throws {
        let coordinator = try await StoreCoordinator(model: run.model, store: .sqlite(run.storeURL))
        let authorIDs = try await EngineScenario.insertAuthors(run.data, into: coordinator)
        _ = try coordinator.execute(EngineScenario.bookRequest(run.data, authorIDs: authorIDs))
        try coordinator.close()
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let model = try Self.model(for: run.variant ?? "", from: run.model)
        let start = ContinuousClock.now
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(run.storeURL))
        let elapsed = ContinuousClock.now - start
        let changes = try coordinator.migrationHistory().last?.changes.joined(separator: "; ") ?? ""
        try coordinator.close()
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return ScenarioOutcome(objects: run.data.books.count, measuredSeconds: seconds, detail: changes)
    }

    /// Every book is still there, under its new name, with its title and author.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        let (table, title) = switch run.variant {
        case "rename-attribute"?: ("Book", "name")
        case "rename-entity"?: ("Volume", "title")
        default: ("Book", "title")
        }
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: run.storeURL.path, configuration: configuration)
        defer { try? queue.close() }
        let (rows, untitled, orphans) = try await queue.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\" WHERE \"\(title)\" IS NULL") ?? 0,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\" WHERE author IS NULL") ?? 0)
        }
        var result = outcome
        if rows != run.data.books.count { result.check = "store has \(rows) of \(run.data.books.count) books" }
        if untitled + orphans > 0 { result.check = "\(untitled) books lost their title, \(orphans) their author" }
        if run.variant == "add-attribute",
           try await queue.read({ try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Book WHERE isbn = 'unknown'") }) != rows {
            result.check = "the new attribute's default did not fill every book"
        }
        if FileManager.default.fileExists(atPath: run.storeURL.path + ".migration-backup") { result.check = "the backup copy was left" }
        return result
    }

    /// The Sandbox's model changed as `variant` says.
    static func model(for variant: String, from model: ObjectModel) throws -> ObjectModel {
        var entities = model.entities.map { entity in
            EntityDescription(entity.name, attributes: entity.attributes, relationships: entity.relationships)
        }
        func changeBook(_ body: (inout [AttributeDescription], inout [RelationshipDescription]) -> Void, name: String = "Book", renamedFrom: String? = nil) {
            guard let i = entities.firstIndex(where: { $0.name == "Book" }) else { return }
            var attributes = entities[i].attributes, relationships = entities[i].relationships
            body(&attributes, &relationships)
            entities[i] = EntityDescription(name, attributes: attributes, relationships: relationships, renamingIdentifier: renamedFrom)
        }
        switch variant {
        case "open": return model
        case "add-attribute":
            changeBook { attributes, _ in attributes.append(AttributeDescription("isbn", type: .string, isOptional: false, defaultValue: .string("unknown"))) }
        case "rename-attribute":
            changeBook { attributes, _ in
                for i in attributes.indices where attributes[i].name == "title" {
                    attributes[i].name = "name"
                    attributes[i].renamingIdentifier = "title"
                }
            }
        case "add-entity":
            entities.append(EntityDescription("Publisher", attributes: [AttributeDescription("name", type: .string, defaultValue: .string(""))]))
        case "rename-entity":
            changeBook({ _, _ in }, name: "Volume", renamedFrom: "Book")
            entities = entities.map { entity in
                let relationships = entity.relationships.map { r in
                    var r = r
                    if r.destination == "Book" { r.destination = "Volume" }
                    return r
                }
                return EntityDescription(entity.name, attributes: entity.attributes, relationships: relationships,
                                         renamingIdentifier: entity.renamingIdentifier)
            }
        default: throw SandboxError("migrate has no variant \(variant)")
        }
        return try ObjectModel(entities: entities)
    }
}

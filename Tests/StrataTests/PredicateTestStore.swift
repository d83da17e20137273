import Foundation
import GRDB
@testable import Strata

/// An in-memory object for predicate evaluation, mirroring one row of the test store.
final class TestObject: PredicateSubject {
    let entity: EntityDescription
    let key: Int64
    var attributes: [PropertyValue]
    var toOne: [Int: TestObject] = [:]
    var toMany: [Int: [TestObject]] = [:]

    init(entity: EntityDescription, key: Int64) {
        self.entity = entity
        self.key = key
        self.attributes = Array(repeating: .null, count: entity.attributes.count)
    }

    var objectID: ObjectID { ObjectID(entity: entity, key: key) }
    var predicateEntity: EntityDescription { entity }
    var predicateObjectID: ObjectID { objectID }
    func predicateAttribute(_ index: Int) -> PropertyValue { attributes[index] }
    func predicateToOne(_ index: Int) -> (any PredicateSubject)? { toOne[index] }
    func predicateToMany(_ index: Int) -> [any PredicateSubject] { toMany[index] ?? [] }

    subscript(attribute name: String) -> PropertyValue {
        get { attributes[entity.attributes.firstIndex { $0.name == name } ?? 0] }
        set { attributes[entity.attributes.firstIndex { $0.name == name } ?? 0] = newValue }
    }
}

/// The model the predicate tests use: Item ⟷ Group (to-one / to-many), Group.parent ⟷
/// Group.children, Item.tags ⟷ Tag.items (many-to-many), Item.detail ⟷ Detail.item (one-to-one).
enum PredicateTestModel {
    static func make() throws -> ObjectModel {
        try ObjectModel(entities: [
            EntityDescription("Item", attributes: [
                AttributeDescription("title", type: .string, isOptional: true),
                AttributeDescription("name", type: .string, isOptional: true),
                AttributeDescription("count", type: .int64, isOptional: true),
                AttributeDescription("score", type: .double, isOptional: true),
                AttributeDescription("flag", type: .bool, isOptional: true),
                AttributeDescription("created", type: .date, isOptional: true),
                AttributeDescription("price", type: .decimal, isOptional: true),
                AttributeDescription("uid", type: .uuid, isOptional: true),
                AttributeDescription("blob", type: .data, isOptional: true),
            ], relationships: [
                RelationshipDescription("group", destination: "Group", inverse: "items"),
                RelationshipDescription("tags", destination: "Tag", inverse: "items", isToMany: true),
                RelationshipDescription("detail", destination: "Detail", inverse: "item"),
            ]),
            EntityDescription("Group", attributes: [
                AttributeDescription("name", type: .string, isOptional: true),
                AttributeDescription("rank", type: .int64, isOptional: true),
            ], relationships: [
                RelationshipDescription("items", destination: "Item", inverse: "group", isToMany: true),
                RelationshipDescription("parent", destination: "Group", inverse: "children"),
                RelationshipDescription("children", destination: "Group", inverse: "parent", isToMany: true),
            ]),
            EntityDescription("Tag", attributes: [
                AttributeDescription("name", type: .string, isOptional: true),
            ], relationships: [
                RelationshipDescription("items", destination: "Item", inverse: "tags", isToMany: true),
            ]),
            EntityDescription("Detail", attributes: [
                AttributeDescription("note", type: .string, isOptional: true),
            ], relationships: [
                RelationshipDescription("item", destination: "Item", inverse: "detail"),
            ]),
        ])
    }
}

/// A real SQLite file in a temporary directory with the model's schema and the predicate
/// functions registered, plus the same objects in memory.
final class PredicateTestStore {
    let model: ObjectModel
    let directory: URL
    let queue: DatabaseQueue
    private(set) var objects: [String: [TestObject]] = [:]

    init(model: ObjectModel) throws {
        self.model = model
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("strata-predicates-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.prepareDatabase { db in PredicateFunctions.register(in: db) }
        do {
            queue = try DatabaseQueue(path: directory.appendingPathComponent("test.sqlite").path, configuration: configuration)
        } catch {
            try? FileManager.default.removeItem(at: directory)   // no deinit for a half-made store
            throw error
        }
        try queue.write { db in
            for statement in StoreSchema.createStatements(for: model) { try db.execute(sql: statement) }
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func entity(_ name: String) -> EntityDescription { model.entity(named: name)! }  // programmer error: test model names

    /// A new object of `entity` with the next key.
    func insert(_ entityName: String) -> TestObject {
        let entity = entity(entityName)
        let object = TestObject(entity: entity, key: Int64((objects[entityName]?.count ?? 0) + 1))
        objects[entityName, default: []].append(object)
        return object
    }

    /// Sets the to-one `key` of `object` and the inverse side in memory.
    func link(_ object: TestObject, _ key: String, to destination: TestObject?) {
        guard case .relationship(let r)? = object.entity.propertyIndex[key] else { return }
        let relationship = object.entity.relationships[r]
        object.toOne[r] = destination
        guard let destination else { return }
        if destination.entity.relationships[relationship.inverseIndex].isToMany {
            destination.toMany[relationship.inverseIndex, default: []].append(object)
        } else {
            destination.toOne[relationship.inverseIndex] = object
        }
    }

    /// Adds a many-to-many pair in memory, both sides.
    func addToMany(_ object: TestObject, _ key: String, _ destination: TestObject) {
        guard case .relationship(let r)? = object.entity.propertyIndex[key] else { return }
        object.toMany[r, default: []].append(destination)
        destination.toMany[object.entity.relationships[r].inverseIndex, default: []].append(object)
    }

    /// Writes every object to SQLite (attributes, foreign keys, join rows).
    func save() throws {
        try queue.write { db in
            for entity in model.entities {
                for object in objects[entity.name] ?? [] {
                    var columns = ["_id"]
                    var values: [DatabaseValue] = [object.key.databaseValue]
                    for (i, attribute) in entity.attributes.enumerated() {
                        columns.append(quoted(attribute.name))
                        values.append(object.attributes[i].databaseValue)
                    }
                    for (r, relationship) in entity.relationships.enumerated() {
                        if case .foreignKey(let column) = relationship.storage {
                            columns.append(quoted(column))
                            values.append(object.toOne[r].map { $0.key.databaseValue } ?? .null)
                        }
                    }
                    let marks = Array(repeating: "?", count: values.count).joined(separator: ", ")
                    try db.execute(sql: "INSERT INTO \(quoted(entity.name)) (\(columns.joined(separator: ", "))) VALUES (\(marks))",
                                   arguments: StatementArguments(values))
                    for (r, relationship) in entity.relationships.enumerated() {
                        guard case .joinTable(let join) = relationship.storage, join.isOwner else { continue }
                        for destination in object.toMany[r] ?? [] {
                            try db.execute(sql: "INSERT INTO \(quoted(join.name)) (\(join.ownColumn), \(join.otherColumn)) VALUES (?, ?)",
                                           arguments: [object.key, destination.key])
                        }
                    }
                }
            }
        }
    }

    /// The keys of `entity` rows matching `predicate`, by SQL.
    func sqlKeys(_ predicate: CompiledPredicate, entity: String) throws -> Set<Int64> {
        var arguments: [DatabaseValue] = []
        let condition = predicate.sql(alias: "t0", arguments: &arguments)
        let sql = "SELECT _id FROM \(quoted(entity)) t0 WHERE \(condition)"
        return try queue.read { db in
            Set(try Int64.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)))
        }
    }

    /// The keys of `entity` objects matching `predicate`, in memory.
    func memoryKeys(_ predicate: CompiledPredicate, entity: String) -> Set<Int64> {
        Set((objects[entity] ?? []).filter { predicate.evaluate($0) }.map(\.key))
    }
}

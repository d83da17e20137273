import Foundation

/// The model a store was written with, as JSON in its metadata table (key `modelSchema`), so
/// that a later model can be compared with it and the store migrated.
///
/// It records every entity, attribute and relationship with what shapes the store (types,
/// optionality, indexes, uniqueness, transformers, cardinality), and each entity's table
/// columns for readers with a SQLite tool. Default values and renaming identifiers are not
/// recorded: a migration reads them from the new model.
struct StoredSchema: Codable, Equatable {
    /// The version of this JSON layout.
    var format = 1
    var entities: [Entity]

    struct Entity: Codable, Equatable {
        var name: String
        var attributes: [Attribute]
        var relationships: [Relationship]
        /// The table's columns after `_id` and `_version`, for people reading the JSON.
        var columns: [String]
        /// The superentity, present only for a subentity (so older schemas read unchanged).
        var superentity: String?
        /// Present (true) only for an abstract entity.
        var abstract: Bool?
    }

    struct Attribute: Codable, Equatable {
        var name: String
        var type: String
        var optional: Bool
        var indexed: Bool
        var unique: Bool
        var transformer: String?
        /// Present (true) only for searchable attributes, so older schemas read unchanged.
        var searchable: Bool?
        /// Present only for derived attributes: the derivation expression.
        var derived: String?
    }

    struct Relationship: Codable, Equatable {
        var name: String
        var destination: String
        var inverse: String
        var toMany: Bool
        var ordered: Bool
        var optional: Bool
        var deleteRule: String
    }

    /// Describes `model`.
    init(_ model: ObjectModel) {
        entities = model.entities.map { entity in
            Entity(
                name: entity.name,
                attributes: entity.attributes.map {
                    Attribute(name: $0.name, type: $0.type.rawValue, optional: $0.isOptional, indexed: $0.isIndexed,
                              unique: $0.isUnique, transformer: $0.transformerName?.rawValue, searchable: $0.isSearchable ? true : nil, derived: $0.derivationExpression)
                },
                relationships: entity.relationships.map {
                    Relationship(name: $0.name, destination: $0.destination, inverse: $0.inverse, toMany: $0.isToMany,
                                 ordered: $0.isOrdered, optional: $0.isOptional, deleteRule: $0.deleteRule.rawValue)
                },
                columns: entity.columns.map { StoreSchema.columnName($0, in: entity) },
                superentity: entity.superentityName, abstract: entity.isAbstract ? true : nil)
        }
    }

    /// The JSON text stored in the metadata table.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Encoding plain strings, booleans and arrays cannot fail.
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// Reads the JSON of a store at `path`.
    static func decode(_ json: String, path: String) throws(StrataError) -> StoredSchema {
        do {
            return try JSONDecoder().decode(StoredSchema.self, from: Data(json.utf8))
        } catch {
            throw StrataError(.corruptStore, "\(path) has a damaged model schema in its metadata table: \(error)", underlying: error)
        }
    }

    /// The model this schema describes, resolved as any model is (so that its tables, columns
    /// and join tables are known). Transformable attributes get a stand-in transformer: the
    /// old model only names columns, it never decodes values.
    func model(path: String) throws(StrataError) -> ObjectModel {
        var descriptions: [EntityDescription] = []
        for entity in entities {
            var attributes: [AttributeDescription] = []
            for a in entity.attributes {
                guard let type = AttributeType(rawValue: a.type) else {
                    throw StrataError(.corruptStore, "\(path) records attribute \(entity.name).\(a.name) with unknown type \(a.type).", entity: entity.name, key: a.name)
                }
                var description = AttributeDescription(a.name, type: type, isOptional: a.optional, isIndexed: a.indexed, isUnique: a.unique,
                                                       transformerName: a.transformer.map(TransformerName.init(rawValue:)), isSearchable: a.searchable ?? false,
                                                       derivationExpression: a.derived)
                if type == .transformable { description.transformer = StoredBytesTransformer() }
                attributes.append(description)
            }
            var relationships: [RelationshipDescription] = []
            for r in entity.relationships {
                guard let rule = DeleteRule(rawValue: r.deleteRule) else {
                    throw StrataError(.corruptStore, "\(path) records relationship \(entity.name).\(r.name) with unknown delete rule \(r.deleteRule).", entity: entity.name, key: r.name)
                }
                relationships.append(RelationshipDescription(r.name, destination: r.destination, inverse: r.inverse, isToMany: r.toMany,
                                                             isOrdered: r.ordered, deleteRule: rule, isOptional: r.optional))
            }
            descriptions.append(EntityDescription(entity.name, attributes: attributes, relationships: relationships,
                                                  superentity: entity.superentity, isAbstract: entity.abstract ?? false))
        }
        do {
            return try ObjectModel(entities: descriptions)
        } catch {
            throw StrataError(.corruptStore, "\(path) records a model schema that is not a valid model: \(error.message)", underlying: error)
        }
    }
}

/// Stands in for the transformer of a transformable attribute of a recorded (old) model,
/// which only names columns and never encodes or decodes.
struct StoredBytesTransformer: DataTransformer {
    func encode(_ value: Any) throws -> Data {
        guard let data = value as? Data else { throw TransformerError.wrongType(expected: "Data", got: "\(type(of: value))") }
        return data
    }
    func decode(_ data: Data) throws -> any Sendable { data }
}

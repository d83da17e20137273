import Foundation
import GRDB
import GRDBSQLite

/// Reads an entity's rows into object storage. The column list is
/// `_id, _version, <attribute columns>, <foreign keys>` (order columns are not read).
struct RowReader {
    let entity: EntityDescription
    let model: ObjectModel
    /// Attribute types by slot, read once (copying whole descriptions per row is costly).
    private let types: [AttributeType]
    /// For each relationship: the destination entity when this table holds its foreign key.
    private let foreignKeyDestinations: [EntityDescription?]

    init(entity: EntityDescription, model: ObjectModel) {
        self.entity = entity
        self.model = model
        self.types = entity.attributes.map(\.type)
        self.foreignKeyDestinations = entity.relationships.map { relationship in
            if !relationship.isToMany, case .foreignKey = relationship.storage { return model.entities[relationship.destinationIndex] }
            return nil
        }
    }

    /// The SELECT list for table alias `alias`.
    func selectList(alias: String) -> String {
        var columns = ["\(alias)._id", "\(alias)._version"]
        for column in entity.columns {
            if case .order = column { continue }
            columns.append("\(alias).\(quoted(StoreSchema.columnName(column, in: entity)))")
        }
        return columns.joined(separator: ", ")
    }

    /// Reads the current row of a raw statement built with ``selectList(alias:)`` (the hot path).
    func read(_ handle: OpaquePointer) -> RowSnapshot {
        let key = sqlite3_column_int64(handle, 0)
        let version = sqlite3_column_int64(handle, 1)
        var attributes: [PropertyValue] = []
        attributes.reserveCapacity(entity.attributes.count)
        var errors: [Int: StrataError] = [:]
        var index: Int32 = 2
        for (i, type) in types.enumerated() {
            var value = RawStatement.value(handle, index, type: type)
            if type == .transformable, case .data(let bytes) = value {
                value = decode(bytes, attribute: entity.attributes[i], slot: i, key: key, errors: &errors)
            } else if !value.fits(type) {
                // Another program wrote a value this attribute cannot hold: the object reads nil
                // (the wrapper's initial value) and keeps the error; the column is left as it is.
                errors[i] = PropertyValue.misfit(value, attribute: entity.attributes[i], entity: entity, objectID: ObjectID(entity: entity, key: key))
                value = .null
            }
            attributes.append(value)
            index += 1
        }
        var relations: [RelationValue] = []
        relations.reserveCapacity(foreignKeyDestinations.count)
        for destination in foreignKeyDestinations {
            if let destination {
                let target = RawStatement.integer(handle, index)
                index += 1
                relations.append(.toOneID(target.map { ObjectID(entity: destination, key: $0) }))
            } else {
                relations.append(.unloaded)
            }
        }
        return RowSnapshot(id: ObjectID(entity: entity, key: key), version: version, attributes: attributes, relationValues: relations, errors: errors)
    }

    private func decode(_ bytes: Data, attribute: AttributeDescription, slot: Int, key: Int64, errors: inout [Int: StrataError]) -> PropertyValue {
        guard let transformer = attribute.transformer else {
            errors[slot] = StrataError(.undecodableValue, "No transformer for \(entity.name).\(attribute.name).", entity: entity.name, key: attribute.name, objectID: ObjectID(entity: entity, key: key))
            return .transformed(TransformedValue(data: bytes, value: nil))
        }
        do {
            return .transformed(TransformedValue(data: bytes, value: try transformer.decode(bytes)))
        } catch {
            errors[slot] = StrataError(
                .undecodableValue, "The stored value of \(entity.name).\(attribute.name) does not decode: \(error)",
                entity: entity.name, key: attribute.name, objectID: ObjectID(entity: entity, key: key), underlying: error)
            return .transformed(TransformedValue(data: bytes, value: nil))
        }
    }
}

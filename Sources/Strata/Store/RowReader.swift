import Foundation
import GRDB
import GRDBSQLite

/// Reads an entity's rows into object storage. The column list is
/// `_id, _version, <attribute columns>, <foreign keys>` (order columns are not read).
///
/// In an inheritance hierarchy: a reader of an entity with subentities selects `_entity` third
/// and the columns of every entity below it, and reads each row with the layout of the row's
/// own entity; a foreign key to an entity with subentities is followed by the `_entity` of
/// the row it names, so that the ID read names the object's own entity.
struct RowReader {
    let entity: EntityDescription
    let model: ObjectModel
    /// Attribute types by slot, read once (copying whole descriptions per row is costly).
    private let types: [AttributeType]
    /// For each relationship: the destination entity when this table holds its foreign key.
    private let foreignKeyDestinations: [EntityDescription?]
    /// The statement column of each attribute, by slot.
    private let attributeColumns: [Int32]
    /// The statement column of each foreign key (by relationship slot; unused elsewhere), and
    /// of its target's `_entity` when the destination has subentities (-1 otherwise).
    private let foreignKeyColumns: [(key: Int32, kind: Int32)]
    /// What the statement selects after `_id` and `_version`.
    private let selected: [Selected]
    /// For an entity with subentities: a reader per entity name, reading this reader's columns.
    private var kindReaders: [String: RowReader]

    /// One selected column.
    private enum Selected {
        /// A column of the table.
        case column(String)
        /// The `_entity` of the row a foreign key names, in the destination's table.
        case targetKind(column: String, table: String)
    }

    init(entity: EntityDescription, model: ObjectModel) {
        let kindEntities = entity.hierarchy.kindIndexes.count > 1 ? entity.hierarchy.kindIndexes.map { model.entities[$0] } : [entity]
        var selected: [Selected] = kindEntities.count > 1 ? [.column(EntityHierarchy.kindColumn)] : []
        var positions: [String: Int32] = [:]
        func position(_ name: String, _ item: Selected) -> Int32 {
            if let known = positions[name] { return known }
            selected.append(item)
            let p = Int32(selected.count + 1)   // after `_id` and `_version`
            positions[name] = p
            return p
        }
        var layouts: [(EntityDescription, [Int32], [(key: Int32, kind: Int32)])] = []
        for kind in kindEntities {
            let attributes = kind.attributes.map { position($0.name, .column($0.name)) }
            var foreignKeys: [(key: Int32, kind: Int32)] = []
            for relationship in kind.relationships {
                guard !relationship.isToMany, case .foreignKey(let column) = relationship.storage else {
                    foreignKeys.append((-1, -1))
                    continue
                }
                foreignKeys.append((position(column, .column(column)), -1))
            }
            layouts.append((kind, attributes, foreignKeys))
        }
        for i in layouts.indices {
            let kind = layouts[i].0
            for (r, relationship) in kind.relationships.enumerated() where layouts[i].2[r].key >= 0 {
                let destination = model.entities[relationship.destinationIndex]
                guard destination.hierarchy.kindIndexes.count > 1 else { continue }
                layouts[i].2[r].kind = position("->" + relationship.name, .targetKind(column: relationship.name, table: destination.tableName))
            }
        }
        self.init(entity: entity, model: model, attributeColumns: layouts[0].1, foreignKeyColumns: layouts[0].2, selected: selected, kinds: [:])
        if kindEntities.count > 1 {
            var kinds: [String: RowReader] = [:]
            for (kind, attributes, foreignKeys) in layouts {
                kinds[kind.name] = RowReader(entity: kind, model: model, attributeColumns: attributes, foreignKeyColumns: foreignKeys, selected: selected, kinds: [:])
            }
            self.kindReaders = kinds
        }
    }

    private init(entity: EntityDescription, model: ObjectModel, attributeColumns: [Int32], foreignKeyColumns: [(key: Int32, kind: Int32)],
                 selected: [Selected], kinds: [String: RowReader]) {
        self.entity = entity
        self.model = model
        self.types = entity.attributes.map(\.type)
        self.foreignKeyDestinations = entity.relationships.map { relationship in
            if !relationship.isToMany, case .foreignKey = relationship.storage { return model.entities[relationship.destinationIndex] }
            return nil
        }
        self.attributeColumns = attributeColumns
        self.foreignKeyColumns = foreignKeyColumns
        self.selected = selected
        self.kindReaders = kinds
    }

    /// The SELECT list for table alias `alias`.
    func selectList(alias: String) -> String {
        var columns = ["\(alias)._id", "\(alias)._version"]
        for item in selected {
            switch item {
            case .column(let name):
                columns.append("\(alias).\(quoted(name))")
            case .targetKind(let column, let table):
                columns.append("(SELECT k.\(EntityHierarchy.kindColumn) FROM \(quoted(table)) k WHERE k._id = \(alias).\(quoted(column)))")
            }
        }
        return columns.joined(separator: ", ")
    }

    /// Reads the current row of a raw statement built with ``selectList(alias:)`` (the hot path).
    func read(_ handle: OpaquePointer) -> RowSnapshot {
        if !kindReaders.isEmpty, let name = RawStatement.text(handle, 2), let reader = kindReaders[name] { return reader.read(handle) }
        let key = sqlite3_column_int64(handle, 0)
        let version = sqlite3_column_int64(handle, 1)
        var attributes: [PropertyValue] = []
        attributes.reserveCapacity(types.count)
        var errors: [Int: StrataError] = [:]
        for i in types.indices {   // by index: an enumerator would hold (and count) a reference to the array
            let type = types[i]
            var value = RawStatement.value(handle, attributeColumns[i], type: type)
            if type == .transformable, case .data(let bytes) = value {
                value = decode(bytes, attribute: entity.attributes[i], slot: i, key: key, errors: &errors)
            } else if !value.fits(type) {
                // Another program wrote a value this attribute cannot hold: the object reads nil
                // (the wrapper's initial value) and keeps the error; the column is left as it is.
                errors[i] = PropertyValue.misfit(value, attribute: entity.attributes[i], entity: entity, objectID: ObjectID(entity: entity, key: key))
                value = .null
            }
            attributes.append(value)
        }
        var relations: [RelationValue] = []
        relations.reserveCapacity(foreignKeyDestinations.count)
        for r in foreignKeyDestinations.indices {
            if let destination = foreignKeyDestinations[r] {
                let column = foreignKeyColumns[r]
                let target = RawStatement.integer(handle, column.key)
                relations.append(.toOneID(target.map { ObjectID(entity: targetEntity(destination, handle, column.kind), key: $0) }))
            } else {
                relations.append(.unloaded)
            }
        }
        return RowSnapshot(id: ObjectID(entity: entity, key: key), version: version, attributes: attributes, relationValues: relations, errors: errors)
    }

    /// The entity of the row a foreign key names: its `_entity` when the destination has
    /// subentities (selected at `column`), the destination otherwise.
    private func targetEntity(_ destination: EntityDescription, _ handle: OpaquePointer, _ column: Int32) -> EntityDescription {
        guard column >= 0, let name = RawStatement.text(handle, column), let kind = model.entity(named: name) else { return destination }
        return kind
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

/// Where a resolved entity sits in an inheritance hierarchy, and so where its rows live.
///
/// A hierarchy (a root entity and every entity below it) is stored in one table, named after
/// the root, holding the columns of every entity in it and an `_entity` column naming each
/// row's own entity. An entity with no superentity and no subentities has a table of its own
/// with no `_entity` column, exactly as before inheritance existed.
struct EntityHierarchy: Sendable {
    /// The direct superentity's index, if any.
    var superentityIndex: Int?
    /// The direct subentities' indexes.
    var subentityIndexes: [Int]
    /// This entity and every entity below it (the kinds a fetch of it returns).
    var kindIndexes: [Int]
    /// The names of ``kindIndexes``, for the SQL filter.
    var kindNames: [String]
    /// The hierarchy's root entity.
    var rootIndex: Int
    /// The table holding the rows: the root entity's name.
    var tableName: String
    /// Whether the table has an `_entity` column (the hierarchy has more than one entity).
    var storesKind: Bool
    /// The columns of the hierarchy's full-text index: the searchable attributes of every
    /// entity in it, superentities first (empty outside a hierarchy: see
    /// ``EntityDescription/searchIndexColumns``).
    var searchColumns: [String] = []

    /// The layout of an entity outside any hierarchy (index unknown until resolved).
    static func standalone(_ name: String, index: Int) -> EntityHierarchy {
        EntityHierarchy(superentityIndex: nil, subentityIndexes: [], kindIndexes: [index], kindNames: [name],
                        rootIndex: index, tableName: name, storesKind: false)
    }

    /// The name of the column holding a row's entity in a hierarchy's table.
    static let kindColumn = "_entity"
}

extension EntityDescription {
    /// The table holding this entity's rows (its hierarchy's root's name).
    var tableName: String { hierarchy.tableName }

    /// The columns of the full-text index this entity's searches use: its own searchable
    /// attributes, or in a hierarchy those of the hierarchy's one index.
    var searchIndexColumns: [String] { hierarchy.storesKind ? hierarchy.searchColumns : searchableAttributeNames }

    /// The name of the full-text index this entity's searches use (its table's).
    var searchIndexTable: String { Self.searchIndexTableName(tableName) }

    /// Whether objects of `other` are objects of this entity: `other` is this entity or one
    /// below it.
    ///
    /// For example:
    /// ```swift
    /// attachment.isKind(of: photo)   // false: a photo is an attachment, not the reverse
    /// photo.isKind(of: attachment)   // true
    /// ```
    public func isKind(of other: EntityDescription) -> Bool {
        self === other || (other.hierarchy.storesKind && other.hierarchy.kindIndexes.contains(index))
    }

    /// The SQL condition selecting this entity's rows (and its subentities') in its table, or
    /// nil when every row of the table is one (a standalone entity, or a hierarchy's root).
    func kindCondition(alias: String) -> String? {
        guard hierarchy.storesKind, hierarchy.rootIndex != index else { return nil }
        let column = "\(alias.isEmpty ? "" : alias + ".")\(EntityHierarchy.kindColumn)"
        if hierarchy.kindNames.count == 1 { return "\(column) = '\(name)'" }   // names are validated identifiers
        return "\(column) IN (\(hierarchy.kindNames.map { "'\($0)'" }.joined(separator: ", ")))"
    }
}

extension EntityDescription {
    /// The SQL that selects a row's own entity name: its `_entity` column in a hierarchy's
    /// table, `NULL` otherwise (every row is this entity's).
    func kindExpression(alias: String) -> String {
        hierarchy.storesKind ? "\(alias.isEmpty ? "" : alias + ".")\(EntityHierarchy.kindColumn)" : "NULL"
    }

    /// The entity of a row of this entity's table whose `_entity` reads `name` (this entity
    /// when `name` is nil or names no entity of the model).
    func kind(named name: String?, in model: ObjectModel) -> EntityDescription {
        guard let name, name != self.name, let kind = model.entity(named: name) else { return self }
        return kind
    }

    /// The SQL condition `condition` restricted to this entity's rows in its table (see
    /// ``kindCondition(alias:)``): nil when both are nil.
    func restricting(_ condition: String?, alias: String) -> String? {
        guard let kind = kindCondition(alias: alias) else { return condition }
        return condition.map { "\(kind) AND (\($0))" } ?? kind
    }
}

extension EntityDescription {
    /// This entity's index and its superentities' (a relationship to any of them can hold its
    /// objects).
    func selfAndSuperentityIndexes(in model: ObjectModel) -> [Int] {
        var result = [index]
        var current = hierarchy.superentityIndex
        while let next = current {
            result.append(next)
            current = model.entities[next].hierarchy.superentityIndex
        }
        return result
    }
}

/// A key path through to-one relationships (`folder.name`, `folder.owner`,
/// `folder.owner.name`) as a dictionary fetch reads it: `propertiesToFetch` and
/// `propertiesToGroupBy` take these as Core Data does, and the result's key is the key path.
///
/// In SQL it is one scalar subquery per hop over the row's alias: a to-one is at most one
/// row, so this is what a `LEFT JOIN` per hop gives (a nil to-one anywhere on the path reads
/// as NULL), written as a column expression that a `SELECT` list and a `GROUP BY` take as is.
/// ```sql
/// (SELECT p2."name" FROM "Person" p2 WHERE p2._id = (SELECT p1."owner" FROM "Folder" p1 WHERE p1._id = t0."folder"))
/// ```
struct ToOnePath {
    /// What the path ends in.
    enum End {
        /// An attribute of the last entity.
        case attribute(AttributeDescription, of: EntityDescription)
        /// A to-one of the last entity, read as an `.objectID` of `destination`.
        case toOne(RelationshipDescription, destination: EntityDescription)
    }

    /// The key path as written (the result's key).
    let keyPath: String
    /// The to-ones walked, in order, with the entity each leaves from and the one it reaches.
    let hops: [(from: EntityDescription, relationship: RelationshipDescription, to: EntityDescription)]
    let end: End
    /// The entity the last segment belongs to.
    let owner: EntityDescription

    /// Resolves `keyPath` (two segments or more) from `entity`; every segment but the last must
    /// be a to-one, the last an attribute or a to-one. Throws `.invalidRequest` otherwise (a
    /// to-many anywhere on the path, as Core Data refuses it in a dictionary fetch).
    init(_ keyPath: String, from entity: EntityDescription, model: ObjectModel) throws(StrataError) {
        self.keyPath = keyPath
        let segments = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        func failure(_ why: String, _ key: String) -> StrataError {
            StrataError(.invalidRequest, "\(keyPath): \(why). A dictionary fetch takes key paths through to-one relationships to an attribute or a to-one.", entity: entity.name, key: keyPath)
        }
        var current = entity
        var hops: [(from: EntityDescription, relationship: RelationshipDescription, to: EntityDescription)] = []
        for segment in segments.dropLast() {
            guard let relationship = current.relationship(named: segment) else {
                throw failure(current.attribute(named: segment) != nil ? "\(current.name).\(segment) is an attribute, not a relationship" : "\(current.name) has no relationship \(segment)", segment)
            }
            guard !relationship.isToMany else { throw failure("\(current.name).\(segment) is a to-many relationship", segment) }
            let next = model.entities[relationship.destinationIndex]
            hops.append((current, relationship, next))
            current = next
        }
        let last = segments.last ?? ""
        if let attribute = current.attribute(named: last) {
            end = .attribute(attribute, of: current)
        } else if let relationship = current.relationship(named: last) {
            guard !relationship.isToMany else { throw failure("\(current.name).\(last) is a to-many relationship", last) }
            end = .toOne(relationship, destination: model.entities[relationship.destinationIndex])
        } else {
            throw failure("\(current.name) has no property \(last)", last)
        }
        self.hops = hops
        self.owner = current
    }

    /// The value's SQL over the root row's alias.
    func sql(alias: String) -> String {
        var key = "\(alias)._id"   // the primary key of the current hop's row
        var depth = 0
        for (from, relationship, to) in hops {
            key = Self.step(relationship, from: from, to: to, key: key, first: depth == 0, alias: alias, depth: &depth)
        }
        switch end {
        case .attribute(let attribute, let owner):
            depth += 1
            return "(SELECT p\(depth).\(quoted(attribute.name)) FROM \(quoted(owner.tableName)) p\(depth) WHERE p\(depth)._id = \(key))"
        case .toOne(let relationship, let destination):
            return Self.step(relationship, from: owner, to: destination, key: key, first: false, alias: alias, depth: &depth)
        }
    }

    /// The primary key of the row `relationship` (of `from`) points at, from the key of the
    /// `from` row (tables are the entities' hierarchies' tables).
    private static func step(_ relationship: RelationshipDescription, from: EntityDescription, to: EntityDescription, key: String, first: Bool,
                             alias: String, depth: inout Int) -> String {
        depth += 1
        let p = "p\(depth)"
        switch relationship.storage {
        case .foreignKey(let column):
            if first { return "\(alias).\(quoted(column))" }
            return "(SELECT \(p).\(quoted(column)) FROM \(quoted(from.tableName)) \(p) WHERE \(p)._id = \(key))"
        case .inverseForeignKey(let column, _):
            return "(SELECT \(p)._id FROM \(quoted(to.tableName)) \(p) WHERE \(p).\(quoted(column)) = \(key))"
        case .joinTable:
            return "NULL"   // never: a to-one has no join table
        }
    }
}

import GRDB

/// Collects arguments and hands out fresh table aliases while a predicate or sort key
/// writes its SQL. Aliases are the caller's alias plus `_1`, `_2`, … so they never clash.
struct PredicateSQLWriter {
    let model: ObjectModel
    private let aliasPrefix: String
    private var aliasCount = 0
    /// The values bound to the `?` placeholders, in order.
    var arguments: [DatabaseValue]

    init(model: ObjectModel, rootAlias: String, arguments: [DatabaseValue]) {
        self.model = model
        self.aliasPrefix = rootAlias
        self.arguments = arguments
    }

    /// A new alias, unique within this statement.
    mutating func freshAlias(_ kind: String = "") -> String {
        aliasCount += 1
        return "\(aliasPrefix)_\(kind)\(aliasCount)"
    }

    /// A `?` bound to `value`.
    mutating func bind(_ value: DatabaseValue) -> String {
        arguments.append(value)
        return "?"
    }

    /// The rows of a to-many relationship `r` of `entity` owned by the object whose id is
    /// the SQL `ownerID`: `FROM … WHERE <link>` and the alias of the destination rows.
    mutating func toManySource(_ entity: EntityDescription, _ r: Int, ownerID: String) -> (fromWhere: String, alias: String) {
        let relationship = entity.relationships[r]
        let destination = quoted(model.entities[relationship.destinationIndex].tableName)
        let t = freshAlias()
        switch relationship.storage {
        case .inverseForeignKey(let column, _):
            return ("FROM \(destination) \(t) WHERE \(t).\(quoted(column)) = \(ownerID)", t)
        case .joinTable(let join):
            let j = freshAlias("j")
            return ("FROM \(quoted(join.name)) \(j) JOIN \(destination) \(t) ON \(t)._id = \(j).\(quoted(join.otherColumn)) WHERE \(j).\(quoted(join.ownColumn)) = \(ownerID)", t)
        case .foreignKey:
            return ("FROM \(destination) \(t) WHERE 0", t)  // programmer error: a to-many never owns a foreign key
        }
    }
}

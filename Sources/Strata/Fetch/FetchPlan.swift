import GRDB

/// A fetch request compiled against its entity: the SQL clauses and the in-memory
/// equivalents used to fold in a context's unsaved changes.
struct FetchPlan {
    let entity: EntityDescription
    let predicate: CompiledPredicate?
    let sortKeys: [CompiledSortKey]
    let model: ObjectModel
    let limit: Int
    let offset: Int
    /// The full-text search, when the request has one with terms.
    let search: CompiledTextSearch?

    init<T>(_ request: FetchRequest<T>, entity: EntityDescription, model: ObjectModel) throws(StrataError) {
        self.entity = entity
        self.predicate = try request.predicate?.compiled(for: entity, in: model)
        var sortKeys: [CompiledSortKey] = []
        for key in request.sortKeys { sortKeys.append(try key.compiled(for: entity, in: model)) }
        self.sortKeys = sortKeys
        self.model = model
        self.limit = max(0, request.fetchLimit)
        self.offset = max(0, request.fetchOffset)
        if let textSearch = request.textSearch {
            self.search = try CompiledTextSearch(textSearch, entity: entity)
        } else {
            self.search = nil
        }
    }

    /// `<entity> t0 [WHERE …]` (in a hierarchy's table, `WHERE _entity IN (…)` first), or with a text search `<fts> JOIN <entity> t0 … WHERE <fts>
    /// MATCH ? [AND …]`: what follows `FROM`.
    func fromAndWhere(arguments: inout [DatabaseValue]) -> String {
        guard let search else {
            var sql = "\(quoted(entity.tableName)) t0"
            // A fetch of an entity with a superentity or subentities reads its own kinds of rows.
            let kind = entity.kindCondition(alias: "t0")
            if let predicate {
                sql += " WHERE " + (kind.map { $0 + " AND (" } ?? "") + predicate.sql(alias: "t0", arguments: &arguments) + (kind == nil ? "" : ")")
            } else if let kind {
                sql += " WHERE " + kind
            }
            return sql
        }
        var sql = search.fromAndWhere(entity: entity, arguments: &arguments)
        if let predicate { sql += " AND (" + predicate.sql(alias: "t0", arguments: &arguments) + ")" }
        return sql
    }

    /// `SELECT <columns> FROM <entity> t0 WHERE … ORDER BY …, t0._id [LIMIT … OFFSET …]`.
    ///
    /// With `pendingChanges` objects of the entity affected by unsaved changes (deleted, or
    /// tested again in memory: see `ObjectContext.PendingEffect`), the window widens to the
    /// first `offset + limit + pendingChanges` rows: the changes can push at most that many
    /// stored rows out of the requested window, and they are folded in afterwards.
    func sql(columns: String, pendingChanges: Int?, arguments: inout [DatabaseValue]) -> String {
        var sql = "SELECT \(columns) FROM " + fromAndWhere(arguments: &arguments)
        sql += " ORDER BY "
        if let search, !search.ranked, sortKeys.isEmpty {
            // The index's own order (its rowid is `_id`): FTS5 hands rows over in it, so a
            // LIMIT stops after the first matches instead of sorting them all.
            sql += "\(search.table).rowid"
        } else {
            if let search, search.ranked { sql += "\(search.table).rank, " }
            sql += CompiledSortKey.orderBy(sortKeys, alias: "t0", model: model)
        }
        if let pendingChanges {
            if limit > 0 {
                sql += " LIMIT ?"
                arguments.append(Int64(offset + limit + pendingChanges).databaseValue)
            }
        } else if limit > 0 || offset > 0 {
            sql += " LIMIT ? OFFSET ?"
            arguments.append((limit > 0 ? Int64(limit) : -1).databaseValue)
            arguments.append(Int64(offset).databaseValue)
        }
        return sql
    }

    /// Whether `subject` passes the predicate (in memory).
    func matches(_ subject: any PredicateSubject) -> Bool { predicate?.evaluate(subject) ?? true }

    /// The in-memory order: the sort keys, then primary key (temporary IDs last), like the SQL.
    func areInIncreasingOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        CompiledSortKey.areInIncreasingOrder(sortKeys, a, b)
    }

    /// Applies offset and limit in memory.
    func window<C: Collection>(_ items: C) -> [C.Element] {
        let start = items.dropFirst(offset)
        return limit > 0 ? Array(start.prefix(limit)) : Array(start)
    }
}

extension ManagedObject: PredicateSubject {
    var predicateEntity: EntityDescription { entity }
    var predicateObjectID: ObjectID { objectID }
    func predicateAttribute(_ index: Int) -> PropertyValue { attributeValue(at: index) }
    func predicateToOne(_ index: Int) -> (any PredicateSubject)? { toOne(at: index) }
    func predicateToMany(_ index: Int) -> [any PredicateSubject] { Array(toMany(at: index)) }
}

extension ManagedObject: PredicateArgumentConvertible {
    /// An object stands for its ID in predicates (`folder == %@`).
    public var predicateArgument: PropertyValue { .objectID(objectID) }
}

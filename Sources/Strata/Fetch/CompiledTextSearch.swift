import GRDB

/// A ``TextSearch`` compiled against its entity: the FTS5 table to join and the text bound to
/// its `MATCH`.
struct CompiledTextSearch {
    /// The entity's FTS5 table, quoted.
    let table: String
    /// The query, restricted to the requested columns.
    let match: String
    /// The query as the request spelled it (for error messages).
    let query: String
    /// Whether relevance orders the results first.
    let ranked: Bool
    /// The FTS table's columns, in order (snippets name a column by position).
    let columns: [String]
    /// The attributes searched: a change to another key cannot change whether an object matches.
    let keys: [String]

    /// Compiles `search` for `entity`; nil for a query without terms (nothing to search).
    ///
    /// - Throws: `.invalidRequest` when the entity has no searchable attribute or a key is not
    ///   a searchable attribute of it.
    init?(_ search: TextSearch, entity: EntityDescription) throws(StrataError) {
        let own = entity.searchableAttributeNames
        let columns = entity.searchIndexColumns
        guard !own.isEmpty else {
            throw StrataError(.invalidRequest, "\(entity.name) has no searchable attribute; declare one with @Attribute(\"key\", .searchable) to search it by text.", entity: entity.name)
        }
        for key in search.keys where !own.contains(key) {
            throw StrataError(.invalidRequest, "\(entity.name).\(key) is not a searchable attribute (searchable: \(own.joined(separator: ", "))).", entity: entity.name, key: key)
        }
        guard !search.query.allSatisfy(\.isWhitespace) else { return nil }
        self.table = quoted(entity.searchIndexTable)
        self.query = search.query
        // In a hierarchy's index, a subentity's search looks only at its own searchable columns.
        let keys = search.keys.isEmpty ? own : search.keys
        self.match = Set(keys) == Set(columns)
            ? search.query
            : "{\(keys.joined(separator: " "))} : (\(search.query))"
        self.ranked = search.ordersByRelevance
        self.columns = columns
        self.keys = keys
    }

    /// `FROM <fts> JOIN <entity> t0 ON … WHERE <fts> MATCH ?`, binding the query.
    func fromAndWhere(entity: EntityDescription, arguments: inout [DatabaseValue]) -> String {
        arguments.append(match.databaseValue)
        let kind = entity.kindCondition(alias: "t0").map { " AND " + $0 } ?? ""
        return "\(table) JOIN \(quoted(entity.tableName)) t0 ON t0._id = \(table).rowid WHERE \(table) MATCH ?\(kind)"
    }

    /// The typed error for a failure of a statement that ran this search: SQLite reports a
    /// query it cannot parse (unbalanced quotes, a stray operator, an unknown column) as a
    /// plain error while stepping, which the statements Strata writes never are otherwise.
    func error(_ error: StrataError) -> StrataError {
        guard let db = error.underlying as? DatabaseError, db.resultCode == .SQLITE_ERROR else { return error }
        return StrataError(.malformedPredicate, "The text search \(TextSearch.quote(query)) is not a valid FTS5 query (\(db.message ?? "syntax error")). Search for user text with TextSearch.words(_:) or .phrase(_:), which quote it.",
                           sql: db.sql, underlying: db)
    }
}

import GRDB
import GRDBSQLite

extension ObjectContext {
    /// Runs a request's text search and returns each match with its relevance and a snippet
    /// of the matching text, in the request's order (most relevant first by default).
    ///
    /// Reads the store only, like every text search (see ``FetchRequest/textSearch``); the
    /// objects are this context's, filled with one more query for those it did not hold.
    ///
    /// - Throws: `.invalidRequest` when the request has no text search, the entity has no
    ///   searchable attribute, or `snippet.key` is not one; `.malformedPredicate` for a query
    ///   SQLite cannot parse or a predicate that does not fit.
    ///
    /// For example:
    /// ```swift
    /// var request = FetchRequest<Note>()
    /// request.textSearch = .words("strict conc")
    /// request.fetchLimit = 20
    /// let results = try context.fetchSearchResults(request)
    /// print(results.first?.snippet ?? "")   // "… enables [strict] [concurrency] checking …"
    /// ```
    public func fetchSearchResults<T: ManagedObject>(_ request: FetchRequest<T>, snippet style: SnippetStyle = SnippetStyle()) throws(StrataError) -> [TextSearchResult<T>] {
        checkQueue()
        catchUpPermanentIDs()
        let entity = try entity(for: request)
        let plan = try FetchPlan(request, entity: entity, model: model)
        guard let search = plan.search else {
            if request.textSearch == nil {
                throw StrataError(.invalidRequest, "fetchSearchResults needs a request with a textSearch.", entity: entity.name)
            }
            return []   // a query without terms: nothing to rank or cut snippets from
        }
        var column = -1
        if let key = style.key {
            guard let index = search.columns.firstIndex(of: key) else {
                throw StrataError(.invalidRequest, "\(entity.name).\(key) is not a searchable attribute to cut snippets from.", entity: entity.name, key: key)
            }
            column = index
        }
        let matches = try coordinator.readSearchMatches(plan, column: column, style: style)
        catchUpPermanentIDs()
        let objects = matches.map { resolve(ObjectID(entity: entity, key: $0.key)) }
        for object in try fill(objects.filter(\.lifecycle.isFault), entity: entity) { object.awakeFromFetch() }
        var results: [TextSearchResult<T>] = []
        results.reserveCapacity(objects.count)
        for (object, match) in zip(objects, matches) {
            guard let object = object as? T else { continue }
            results.append(TextSearchResult(object: object, relevance: -match.score, snippet: match.snippet))
        }
        return results
    }
}

extension StoreCoordinator {
    /// The keys, `bm25` scores and snippets of the rows a text-search plan selects, in order.
    func readSearchMatches(_ plan: FetchPlan, column: Int, style: SnippetStyle) throws(StrataError) -> [(key: Int64, score: Double, snippet: String)] {
        guard let search = plan.search else { return [] }
        var arguments: [DatabaseValue] = []
        let prefix: [DatabaseValue] = [style.open.databaseValue, style.close.databaseValue, style.ellipsis.databaseValue, Int64(min(64, max(1, style.words))).databaseValue]
        let columns = "t0._id, bm25(\(search.table)), snippet(\(search.table), \(column), ?, ?, ?, ?)"
        let sql = plan.sql(columns: columns, pendingChanges: nil, arguments: &arguments)
        return try read(plan) { db in
            let statement = try db.cachedStatement(sql: sql)
            statement.setUncheckedArguments(StatementArguments(prefix + arguments))
            var result: [(key: Int64, score: Double, snippet: String)] = []
            try RawStatement.forEachRow(statement, db) { handle in
                let text = sqlite3_column_text(handle, 2).map { String(cString: $0) } ?? ""
                result.append((sqlite3_column_int64(handle, 0), sqlite3_column_double(handle, 1), text))
            }
            return result
        }
    }
}

/// A full-text search over an entity's searchable attributes (``AttributeOptions/searchable``),
/// set on a fetch request's ``FetchRequest/textSearch``.
///
/// The query is SQLite FTS5's query language: words (`swift concurrency` matches notes with
/// both words, in any order), prefixes (`conc*`), phrases (`"strict concurrency"`), `OR`,
/// `NOT`, `NEAR(a b, 5)` and parentheses. Matching folds case and diacritics and works on
/// whole words (or word prefixes), unlike `CONTAINS[cd]`, which finds any substring. To search
/// for text a user typed, use ``words(_:in:lastWordIsPrefix:)`` or ``phrase(_:in:)``: they
/// quote it, so no character of it is read as an operator.
///
/// Results come in order of relevance (SQLite's `bm25`, best first) unless
/// ``ordersByRelevance`` is false; the request's sort keys break ties (or give the whole order).
/// A search reads the store: the context's unsaved changes are not searched (see
/// ``FetchRequest/textSearch``).
///
/// For example:
/// ```swift
/// var request = FetchRequest<Note>(predicate: try ObjectPredicate("folder.name == %@", "Inbox"))
/// request.textSearch = TextSearch("\"strict concurrency\" OR actor*")
/// request.fetchLimit = 50
/// let best = try context.fetch(request)
/// ```
public struct TextSearch: Sendable, Hashable {
    /// The FTS5 query. One with no terms (empty, or spaces only) searches nothing: the request
    /// runs as if it had no text search.
    public var query: String
    /// The searchable attributes to search; empty (the default) searches all of them.
    public var keys: [String]
    /// Whether the most relevant matches come first (the default). When false, the request's
    /// sort keys alone give the order, as a fetched-results controller needs.
    public var ordersByRelevance: Bool

    /// A search with an FTS5 query.
    ///
    /// For example:
    /// ```swift
    /// let search = TextSearch("swift conc*", in: ["body"])
    /// ```
    public init(_ query: String, in keys: [String] = [], ordersByRelevance: Bool = true) {
        self.query = query
        self.keys = keys
        self.ordersByRelevance = ordersByRelevance
    }

    /// A search for every word of `text`, taken literally (quoted): quotes, `*`, `-`, `OR` and
    /// parentheses a user typed are searched for, never read as operators. The last word is a
    /// prefix (search-as-you-type) unless `text` ends with a space or `lastWordIsPrefix` is false.
    ///
    /// For example:
    /// ```swift
    /// request.textSearch = .words("strict conc")   // "strict" AND "conc"*
    /// ```
    public static func words(_ text: String, in keys: [String] = [], lastWordIsPrefix: Bool = true) -> TextSearch {
        let words = text.split(whereSeparator: \.isWhitespace)
        var terms = words.map { quote(String($0)) }
        if lastWordIsPrefix, let last = text.last, !last.isWhitespace, !terms.isEmpty {
            terms[terms.count - 1] += "*"
        }
        return TextSearch(terms.joined(separator: " "), in: keys)
    }

    /// A search for `text` as one phrase: its words next to each other, in order, taken literally.
    ///
    /// For example:
    /// ```swift
    /// request.textSearch = .phrase("strict concurrency")
    /// ```
    public static func phrase(_ text: String, in keys: [String] = []) -> TextSearch {
        TextSearch(text.allSatisfy(\.isWhitespace) ? "" : quote(text), in: keys)
    }

    /// `text` as one FTS5 string (in double quotes, inner quotes doubled), to build a query
    /// around user text.
    ///
    /// For example:
    /// ```swift
    /// let query = TextSearch.quote(userText) + " NOT draft"
    /// ```
    public static func quote(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

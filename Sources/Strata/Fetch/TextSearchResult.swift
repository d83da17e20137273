/// One match of a text search: the object, how relevant it is, and a snippet of the matching
/// text (see ``ObjectContext/fetchSearchResults(_:snippet:)``).
///
/// For example:
/// ```swift
/// for result in try context.fetchSearchResults(request) {
///     print(result.object.title, result.relevance, result.snippet)   // "… the [strict] [concurrency] checks …"
/// }
/// ```
public struct TextSearchResult<Object: ManagedObject> {
    /// The matching object, as the context holds it.
    public let object: Object
    /// SQLite's `bm25` score turned around so that more relevant is larger (always > 0 for a
    /// match; comparable only within one search).
    public let relevance: Double
    /// A short piece of the matching text with the matched terms marked (see ``SnippetStyle``);
    /// read from the store, so unsaved edits of the text are not in it.
    public let snippet: String
}

/// How ``ObjectContext/fetchSearchResults(_:snippet:)`` cuts and marks snippets (SQLite's
/// `snippet()` function).
///
/// For example:
/// ```swift
/// let style = SnippetStyle(open: "<b>", close: "</b>", ellipsis: "…", words: 12, key: "body")
/// ```
public struct SnippetStyle: Sendable, Hashable {
    /// Put before each matched term.
    public var open: String
    /// Put after each matched term.
    public var close: String
    /// Marks text left out at either end.
    public var ellipsis: String
    /// At most this many words (1 to 64).
    public var words: Int
    /// The searchable attribute to cut the snippet from; nil picks the one that matches best.
    public var key: String?

    /// A style; the default marks terms with `[` and `]` in snippets of up to 10 words.
    ///
    /// For example:
    /// ```swift
    /// let style = SnippetStyle(open: "**", close: "**")
    /// ```
    public init(open: String = "[", close: String = "]", ellipsis: String = "…", words: Int = 10, key: String? = nil) {
        self.open = open
        self.close = close
        self.ellipsis = ellipsis
        self.words = words
        self.key = key
    }
}

public import Strata

/// The second entity of the import: each author has a contiguous run of books.
///
/// For example:
/// ```swift
/// let author = context.insert(Author.self)
/// author.name = "Author 1"; author.index = 1
/// ```
public final class Author: ManagedObject {
    /// The author's name.
    @Attribute("name") public var name = ""
    /// The author's number (indexed: the import's relationship pass looks authors up by it).
    @Attribute("index", .indexed) public var index: Int64 = 0
    /// The author's books.
    @Relationship("books", inverse: "author") public var books: Set<Book>
}

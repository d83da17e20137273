public import Foundation

/// The rows an import writes, generated from a seed so that every path (the stacks, batch
/// insert, GRDB, raw SQLite) writes the same values. A row is generated when it is read
/// (``BookRows``), so a run holds only the rows it is importing, as an app streaming its
/// feed would, and the process's peak RSS is the engine's.
///
/// For example:
/// ```swift
/// let data = SourceData(books: 1000, seed: 42)
/// print(data.books[0].title, data.authorCount)
/// ```
public struct SourceData: Sendable {
    /// One book's values.
    public struct BookRow: Sendable {
        /// The title.
        public let title: String
        /// The publication date.
        public let published: Date
        /// 0–5.
        public let rating: Int64
        /// The row's index, 0-based: the list's sort key.
        public let position: Int64
        /// Which author (0-based) the book belongs to; books of one author are contiguous.
        public let authorIndex: Int
    }

    /// How many books each author has.
    public static let booksPerAuthor = 100

    /// The books, in position order, generated when read.
    public let books: BookRows
    /// How many authors the books refer to.
    public var authorCount: Int { max(1, (books.count + Self.booksPerAuthor - 1) / Self.booksPerAuthor) }

    /// The `books` rows of `seed` (generated when read).
    public init(books count: Int, seed: UInt64) {
        books = BookRows(count: count, seed: seed)
    }
}

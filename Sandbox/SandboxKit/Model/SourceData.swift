public import Foundation
import StrataRandom

/// The rows an import writes, generated once per run from a seed so that every path (the
/// stacks, batch insert, GRDB, raw SQLite) writes the same values.
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

    /// The books, in position order.
    public let books: [BookRow]
    /// How many authors the books refer to.
    public var authorCount: Int { max(1, (books.count + Self.booksPerAuthor - 1) / Self.booksPerAuthor) }

    /// Generates `books` rows from `seed`.
    public init(books count: Int, seed: UInt64) {
        var random = SplitMix64(seed: seed)
        books = (0..<count).map { i in
            BookRow(title: "Book \(i) #\(random.next() % 1_000_000)",
                    published: Date(timeIntervalSince1970: 1_600_000_000 + Double(random.next() % 100_000_000)),
                    rating: Int64(random.next() % 6), position: Int64(i), authorIndex: i / Self.booksPerAuthor)
        }
    }
}

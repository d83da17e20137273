import Foundation
import StrataRandom

extension SourceData {
    /// The books of a run, generated when read rather than held: row `i` is computed from the
    /// seed and `i` alone (its three draws are the generator's draws `3i`, `3i + 1`, `3i + 2`),
    /// so the rows are exactly those of generating them all in order, and an import of a
    /// million books holds one batch of rows at a time, as an app streaming its feed would.
    ///
    /// For example:
    /// ```swift
    /// let books = SourceData(books: 1000, seed: 42).books
    /// print(books[999].title, books[0..<10].count)
    /// ```
    public struct BookRows: RandomAccessCollection, Sendable {
        /// How many rows there are.
        public let count: Int
        private let seed: UInt64

        /// `count` rows generated from `seed`.
        init(count: Int, seed: UInt64) {
            self.count = Swift.max(0, count)
            self.seed = seed
        }

        /// 0.
        public var startIndex: Int { 0 }
        /// ``count``.
        public var endIndex: Int { count }

        /// Row `position` (0-based), generated now.
        public subscript(position: Int) -> BookRow {
            precondition(position >= 0 && position < count, "book row \(position) is out of 0..<\(count)")
            var random = SplitMix64(seed: seed, skipping: 3 * UInt64(position))
            let title = "Book \(position) #\(random.next() % 1_000_000)"
            let published = Date(timeIntervalSince1970: 1_600_000_000 + Double(random.next() % 100_000_000))
            let rating = Int64(random.next() % 6)
            return BookRow(title: title, published: published, rating: rating, position: Int64(position),
                           authorIndex: position / SourceData.booksPerAuthor)
        }
    }
}

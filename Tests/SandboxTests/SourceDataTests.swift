import Foundation
import SandboxKit
import StrataRandom
import Testing

/// The Sandbox's rows are generated when read; they must be the rows generating them all in
/// order gives (the figures in docs compare runs made before and after streaming).
@Suite struct SourceDataTests {
    /// The eager generation the rows were made with before they were streamed.
    static func eager(_ count: Int, seed: UInt64) -> [(String, Date, Int64, Int64, Int)] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { i in
            ("Book \(i) #\(random.next() % 1_000_000)",
             Date(timeIntervalSince1970: 1_600_000_000 + Double(random.next() % 100_000_000)),
             Int64(random.next() % 6), Int64(i), i / SourceData.booksPerAuthor)
        }
    }

    @Test func streamedRowsAreTheEagerRows() {
        let count = 1_050, data = SourceData(books: count, seed: 42)
        let expected = Self.eager(count, seed: 42)
        #expect(data.books.count == count)
        #expect(data.authorCount == 11)
        for (row, old) in zip(data.books, expected) {
            #expect(row.title == old.0 && row.published == old.1 && row.rating == old.2 && row.position == old.3 && row.authorIndex == old.4)
        }
        // Random access and slices read the same rows, in any order.
        let slice = data.books[700..<710]
        #expect(slice.map(\.title) == expected[700..<710].map(\.0))
        #expect(data.books[1_049].title == expected[1_049].0)
        #expect(data.books[3].title == expected[3].0)
    }

    @Test func skippingDrawsIsDrawingThem() {
        var drawn = SplitMix64(seed: 7)
        for _ in 0..<1_000 { _ = drawn.next() }
        var skipped = SplitMix64(seed: 7, skipping: 1_000)
        #expect((0..<5).map { _ in drawn.next() } == (0..<5).map { _ in skipped.next() })
    }
}

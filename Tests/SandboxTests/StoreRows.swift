import Foundation
import GRDB

/// What a Sandbox run left in its store file, read with a GRDB connection of the test's own
/// (not the engine the scenario used), so a scenario cannot grade itself.
///
/// For example:
/// ```swift
/// let rows = try StoreRows(at: record.storeURL)
/// #expect(rows.books.count == 200)
/// ```
struct StoreRows {
    /// One row of the `Book` table.
    struct Book: Hashable {
        var id: Int64
        var title: String
        var published: Double
        var rating: Int64
        var position: Int64
        /// The `author` foreign key.
        var author: Int64?
    }

    /// One row of the `Author` table.
    struct Author: Hashable {
        var id: Int64
        var name: String
        var index: Int64
    }

    /// Every book, by position then primary key.
    let books: [Book]
    /// Every author, by primary key.
    let authors: [Int64: Author]
    /// `SELECT COUNT(*) FROM Book`, asked separately from the rows.
    let bookCount: Int

    /// Reads the store at `url` (which must exist: a missing file is an error, not an empty store);
    /// `table` and `title` name the book table and its title column (a migration may rename them).
    init(at url: URL, table: String = "Book", title: String = "title") throws {
        guard FileManager.default.fileExists(atPath: url.path) else { throw CocoaError(.fileNoSuchFile) }
        let queue = try DatabaseQueue(path: url.path)
        defer { try? queue.close() }
        (books, authors, bookCount) = try queue.read { db in
            let books = try Row.fetchAll(db, sql: """
                SELECT _id, "\(title)" AS title, published, rating, position, author FROM "\(table)" ORDER BY position, _id
                """).map { row in
                Book(id: row["_id"], title: row["title"], published: row["published"], rating: row["rating"],
                     position: row["position"], author: row["author"])
            }
            var authors: [Int64: Author] = [:]
            for row in try Row.fetchAll(db, sql: #"SELECT _id, name, "index" FROM "Author""#) {
                authors[row["_id"]] = Author(id: row["_id"], name: row["name"], index: row["index"])
            }
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\"") ?? -1
            return (books, authors, count)
        }
    }
}

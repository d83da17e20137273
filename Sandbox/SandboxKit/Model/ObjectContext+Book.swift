import Strata

extension ObjectContext {
    /// Inserts the book a source row describes (its author is set by the import's second pass).
    ///
    /// For example:
    /// ```swift
    /// try await importer.perform { for row in rows { importer.insertBook(row) }; try importer.save() }
    /// ```
    @discardableResult
    func insertBook(_ row: SourceData.BookRow) -> Book {
        let book = insert(Book.self)
        book.title = row.title
        book.published = row.published
        book.rating = row.rating
        book.position = row.position
        return book
    }
}

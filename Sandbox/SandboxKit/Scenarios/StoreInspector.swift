public import Foundation
public import Strata

/// Reads a store file through a coordinator of its own (not the stack's), to check what
/// really reached disk.
///
/// For example:
/// ```swift
/// let books = try await StoreInspector.books(at: run.storeURL, model: run.model)
/// ```
public enum StoreInspector {
    /// One stored book's values.
    public struct StoredBook: Sendable, Hashable {
        /// The stored title.
        public var title: String
        /// The stored rating.
        public var rating: Int64
        /// Whether the row has an author.
        public var hasAuthor: Bool
    }

    /// Every stored book by position.
    public static func books(at url: URL, model: ObjectModel) async throws -> [Int64: StoredBook] {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "inspector")
        let books = try await context.perform { () throws -> [Int64: StoredBook] in
            var result: [Int64: StoredBook] = [:]
            for book in try context.fetch(FetchRequest<Book>()) {
                result[book.position] = StoredBook(title: book.title, rating: book.rating, hasAuthor: book.author != nil)
            }
            return result
        }
        try coordinator.close()
        return books
    }
}

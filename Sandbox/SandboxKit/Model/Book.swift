public import Foundation
public import Strata

/// The import's main entity: the rows every scenario writes, and the rows the raw SQLite
/// baselines write to the same table shape.
///
/// For example:
/// ```swift
/// let book = context.insert(Book.self)
/// book.title = "Dune"; book.position = 0
/// ```
public final class Book: ManagedObject {
    /// The title; the editor scenarios change it.
    @Attribute("title") public var title = ""
    /// When the book came out.
    @Attribute("published") public var published = Date(timeIntervalSince1970: 0)
    /// 0–5; the editor-during-import scenario edits it while an import changes titles.
    @Attribute("rating") public var rating: Int64 = 0
    /// The book's place in the list (indexed: the UI sorts by it and shows the first 50).
    @Attribute("position", .indexed) public var position: Int64 = 0
    /// The author; set in the import's second pass.
    @Relationship("author", inverse: "books") public var author: Author?
}

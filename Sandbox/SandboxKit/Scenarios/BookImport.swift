public import Strata

/// The import every import-like scenario runs: authors and books first, then each book's
/// author in a second pass, saving every `batch` objects in one context and resetting it
/// after each save (objects do not pile up in the import context).
///
/// For example:
/// ```swift
/// let pushes = try await BookImport(run: run).run(in: stack.newImportContext())
/// ```
public struct BookImport: Sendable {
    /// The run whose data, batch size and stack are used.
    public let run: ScenarioRun

    /// An import for `run`.
    public init(run: ScenarioRun) { self.run = run }

    /// Imports every row into `importer`; returns how many of its saves went through main.
    public func run(in importer: ObjectContext) async throws -> Int {
        let data = run.data, batch = max(1, run.batch)
        var pushes = 0
        // Objects: authors, then books.
        var start = 0
        while start < data.authorCount {
            let range = start..<min(data.authorCount, start + batch)
            try await importer.perform {
                for i in range {
                    let author = importer.insert(Author.self)
                    author.name = "Author \(i)"
                    author.index = Int64(i)
                }
                try importer.save()
                importer.reset()
            }
            if try await run.finishSave(of: importer) { pushes += 1 }
            start = range.upperBound
        }
        start = 0
        while start < data.books.count {
            let rows = data.books[start..<min(data.books.count, start + batch)]
            try await importer.perform {
                for row in rows { importer.insertBook(row) }
                try importer.save()
                importer.reset()
            }
            if try await run.finishSave(of: importer) { pushes += 1 }
            start += rows.count
            run.step(start, of: data.books.count * 2, "objects+relationships")
        }
        // Relationships: each book's author, looked up by index.
        start = 0
        while start < data.books.count {
            let first = start, end = min(data.books.count, start + batch)
            let rows = data.books[first..<end]
            try await importer.perform {
                let books = try importer.fetch(FetchRequest<Book>(
                    predicate: try ObjectPredicate("position >= %@ AND position < %@", Int64(first), Int64(end))))
                let firstAuthor = rows.first?.authorIndex ?? 0, lastAuthor = rows.last?.authorIndex ?? 0
                let authors = try importer.fetch(FetchRequest<Author>(
                    predicate: try ObjectPredicate("index >= %@ AND index <= %@", Int64(firstAuthor), Int64(lastAuthor))))
                var byIndex: [Int64: Author] = [:]
                for author in authors { byIndex[author.index] = author }
                for book in books {
                    book.author = byIndex[book.position / Int64(SourceData.booksPerAuthor)]
                }
                try importer.save()
                importer.reset()
            }
            if try await run.finishSave(of: importer) { pushes += 1 }
            start = end
            run.step(data.books.count + start, of: data.books.count * 2, "objects+relationships")
        }
        return pushes
    }
}

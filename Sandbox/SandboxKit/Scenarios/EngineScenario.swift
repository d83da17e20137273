import Foundation
import Strata

/// `engine`: the engine without a stack, each measurement next to its raw SQLite counterpart
/// in the same run — context insert and batch insert against a raw insert, a materialised and
/// a batched fetch against a raw read (and the floor of any object graph's fetch,
/// ``ObjectFloorRead``), one-object saves against raw one-row transactions.
/// Each variant runs on a fresh store file with the engine's schema; only the work itself is
/// timed (opening the store and seeding it are not). The `×raw` column of a variant is its
/// rate over its counterpart's (``ScenarioVariant/baseline``). The timed bodies are
/// `@inline(never)` functions named `measured…`, so callgrind can count them alone
/// (`--toggle-collect='*measured*'`; see docs/performance.md).
///
/// For example:
/// ```swift
/// swift run -c release Sandbox --scenario engine --objects 100000
/// ```
public struct EngineScenario: Scenario {
    public static let name = "engine"
    public static let summary = "the engine without a stack next to raw SQLite: context and batch insert, fetches, one-object saves"
    /// One-object saves (and raw one-row commits) made per run: at most this many, so the
    /// default 100,000-object run stays short.
    public static let singleSaveLimit = 2_000

    public static let variants = [
        ScenarioVariant(name: "raw-insert", usesStack: false, baseline: "raw-insert"),
        ScenarioVariant(name: "context-insert", usesStack: false, baseline: "raw-insert"),
        // The same import into a store that records its change history: ×raw is against
        // context-insert, so it reads as the cost of capture.
        ScenarioVariant(name: "history-insert", usesStack: false, baseline: "context-insert"),
        ScenarioVariant(name: "batch-insert", usesStack: false, baseline: "raw-insert"),
        ScenarioVariant(name: "raw-read", usesStack: false, baseline: "raw-read"),
        ScenarioVariant(name: "fetch", usesStack: false, baseline: "raw-read"),
        ScenarioVariant(name: "fetch-batched", usesStack: false, baseline: "raw-read"),
        // What any engine handing out one object per row pays at least (ObjectFloorRead): how
        // far the fetch's target can be reached by an object graph at all.
        ScenarioVariant(name: "floor-hashed", usesStack: false, baseline: "raw-read"),
        ScenarioVariant(name: "floor-indexed", usesStack: false, baseline: "raw-read"),
        ScenarioVariant(name: "raw-commit", usesStack: false, baseline: "raw-commit"),
        ScenarioVariant(name: "single-save", usesStack: false, baseline: "raw-commit"),
    ]

    public init() {}

    /// Every variant starts from the engine's schema; the readers start from every book (with
    /// its author) written by the engine's batch insert.
    public func prepare(_ run: ScenarioRun) async throws {
        switch run.variant {
        case "raw-read"?, "fetch"?, "fetch-batched"?, "floor-hashed"?, "floor-indexed"?:
            let coordinator = try await StoreCoordinator(model: run.model, store: .sqlite(run.storeURL))
            let authorIDs = try await Self.insertAuthors(run.data, into: coordinator)
            _ = try coordinator.execute(Self.bookRequest(run.data, authorIDs: authorIDs))
            try coordinator.close()
        default:
            try await BaselineScenario.createSchema(at: run.storeURL, model: run.model)
        }
    }

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        let saves = run.data.books.prefix(Self.singleSaveLimit)
        switch run.variant {
        case "raw-insert"?:
            let seconds = try await RawSQLiteInsert.bestOf(RawSQLiteInsert.repetitions, run.data, scratch: run.scratch, model: run.model, first: run.storeURL)
            return ScenarioOutcome(objects: run.data.books.count, measuredSeconds: seconds)
        case "raw-read"?:
            let (seconds, rows) = try RawSQLiteRead.readBooks(at: run.storeURL)
            return ScenarioOutcome(objects: rows, measuredSeconds: seconds)
        case "floor-hashed"?, "floor-indexed"?:
            let (seconds, rows) = try ObjectFloorRead.readBooks(at: run.storeURL, into: run.variant == "floor-hashed" ? .hashed : .indexedByKey)
            return ScenarioOutcome(objects: rows, measuredSeconds: seconds)
        case "raw-commit"?:
            return ScenarioOutcome(objects: saves.count, measuredSeconds: try RawSQLiteCommit.insertOneByOne(saves, into: run.storeURL))
        default:
            var options = StoreOptions()
            options.recordsHistory = run.variant == "history-insert"
            let coordinator = try await StoreCoordinator(model: run.model, store: .sqlite(run.storeURL, options: options))
            defer { try? coordinator.close() }
            switch run.variant {
            case "context-insert"?, "history-insert"?: return try await Self.contextInsert(run, into: coordinator)
            case "batch-insert"?:
                let seconds = try await Self.batchInsert(run.data, into: coordinator)
                return ScenarioOutcome(objects: run.data.books.count, measuredSeconds: seconds)
            case "fetch"?: return try await Self.fetch(run, from: coordinator, batchSize: 0)
            case "fetch-batched"?: return try await Self.fetch(run, from: coordinator, batchSize: 500)
            case "single-save"?: return try await Self.singleSaves(saves, into: coordinator)
            default: throw SandboxError("engine has no variant \(run.variant ?? "nil")")
            }
        }
    }

    /// The writers left every row they wrote; the readers read every row.
    public func verify(_ run: ScenarioRun, _ outcome: ScenarioOutcome) async throws -> ScenarioOutcome {
        var result = outcome
        let expected: Int
        switch run.variant {
        case "raw-commit"?, "single-save"?: expected = min(run.data.books.count, Self.singleSaveLimit)
        default: expected = run.data.books.count
        }
        if outcome.objects != expected { result.check = "handled \(outcome.objects) of \(expected) books" }
        let stored = try await StoreInspector.books(at: run.storeURL, model: run.model)
        if stored.count != expected { result.check = "store has \(stored.count) of \(expected) books" }
        if ["context-insert", "history-insert", "batch-insert", "fetch"].contains(run.variant ?? ""), stored.values.contains(where: { !$0.hasAuthor }) {
            result.check = "a stored book has no author"
        }
        if run.variant == "history-insert" {
            let recorded = try await Self.historyInserts(at: run.storeURL, model: run.model)
            if recorded != expected + run.data.authorCount { result.check = "history records \(recorded) inserts of \(expected + run.data.authorCount)" }
        }
        return result
    }

    /// How many inserts the store's history records.
    static func historyInserts(at url: URL, model: ObjectModel) async throws -> Int {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(url))
        defer { try? coordinator.close() }
        return try coordinator.history(after: nil).reduce(0) { $0 + $1.changes.filter { $0.operation == .insert }.count }
    }

    /// Authors, then books with their author, inserted in one private root context and saved
    /// every `--batch` objects (objects are kept, as an import without `reset()` keeps them).
    static func contextInsert(_ run: ScenarioRun, into coordinator: StoreCoordinator) async throws -> ScenarioOutcome {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "engine import")
        let data = run.data, batch = max(1, run.batch)
        let recording = run.variant == "history-insert"
        let seconds = try await context.perform {
            try timed { recording ? try measuredHistoryInsert(data, into: context, batch: batch) : try measuredContextInsert(data, into: context, batch: batch) }
        }
        try await context.perform { context.reset() }   // objects are released untimed
        return ScenarioOutcome(objects: data.books.count, measuredSeconds: seconds)
    }

    /// The same import into a store that records history (its own timed body, so that a
    /// profile tells the two apart).
    @inline(never)
    static func measuredHistoryInsert(_ data: SourceData, into context: ObjectContext, batch: Int) throws {
        // Named, so this body differs from measuredContextInsert's: the optimiser would
        // otherwise fold the two into one symbol and a profile could not count them apart.
        context.transactionAuthor = "engine history import"
        try importBooks(data, into: context, batch: batch)
        try context.save()   // the last batch (after the call, so it is not a tail call a profile cannot see)
    }

    @inline(never)
    static func measuredContextInsert(_ data: SourceData, into context: ObjectContext, batch: Int) throws {
        try importBooks(data, into: context, batch: batch)
        try context.save()   // the last batch
    }

    /// The import both timed bodies run (they save its last batch).
    static func importBooks(_ data: SourceData, into context: ObjectContext, batch: Int) throws {
        let authors = (0..<data.authorCount).map { i in
            let author = context.insert(Author.self)
            author.name = "Author \(i)"
            author.index = Int64(i)
            return author
        }
        for (i, row) in data.books.enumerated() {
            context.insertBook(row).author = authors[row.authorIndex]
            if (i + 1) % batch == 0 { try context.save() }
        }
    }

    /// Authors saved through a context (untimed), then every book with its author's ID in one
    /// ``BatchInsertRequest`` (timed: building the request and executing it, foreign keys on).
    static func batchInsert(_ data: SourceData, into coordinator: StoreCoordinator) async throws -> Double {
        let authorIDs = try await insertAuthors(data, into: coordinator)
        var written = 0
        let seconds = try timed { written = try measuredBatchInsert(data, authorIDs: authorIDs, into: coordinator) }
        guard written == data.books.count else { throw SandboxError("batch insert wrote \(written) of \(data.books.count) rows") }
        return seconds
    }

    @inline(never)
    static func measuredBatchInsert(_ data: SourceData, authorIDs: [ObjectID], into coordinator: StoreCoordinator) throws -> Int {
        try coordinator.execute(bookRequest(data, authorIDs: authorIDs)).count
    }

    /// Every book of `data`, with its author's ID, as one batch insert whose handler writes
    /// each row as the store asks for it (the raw baseline, too, binds from `data` row by row).
    static func bookRequest(_ data: SourceData, authorIDs: [ObjectID]) -> BatchInsertRequest {
        let books = data.books
        return BatchInsertRequest(entityName: "Book", keys: ["title", "published", "rating", "position", "author"], count: books.count) { i, values in
            let book = books[i]
            values[0] = .string(book.title)
            values[1] = .date(book.published)
            values[2] = .integer(book.rating)
            values[3] = .integer(book.position)
            values[4] = .objectID(authorIDs[book.authorIndex])
        }
    }

    /// The authors of `data`, saved through a context (never timed); their IDs by index.
    static func insertAuthors(_ data: SourceData, into coordinator: StoreCoordinator) async throws -> [ObjectID] {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "engine authors")
        return try await context.perform { () throws -> [ObjectID] in
            let authors = (0..<data.authorCount).map { i in
                let author = context.insert(Author.self)
                author.name = "Author \(i)"
                author.index = Int64(i)
                return author
            }
            try context.save()
            return authors.map(\.objectID)
        }
    }

    /// Every book fetched into a new private context (as full objects, or as faults paged
    /// `batchSize` at a time) and its title read once.
    static func fetch(_ run: ScenarioRun, from coordinator: StoreCoordinator, batchSize: Int) async throws -> ScenarioOutcome {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "engine fetch")
        let (seconds, count) = try await context.perform { () throws -> (Double, Int) in
            var books: [Book] = []
            let seconds = try timed {
                books = batchSize > 0 ? try measuredBatchedFetch(context, batchSize: batchSize) : try measuredMaterialisedFetch(context)
            }
            return (seconds, books.count)   // the objects are released after the timed part
        }
        try await context.perform { context.reset() }
        return ScenarioOutcome(objects: count, measuredSeconds: seconds)
    }

    @inline(never)
    static func measuredMaterialisedFetch(_ context: ObjectContext) throws -> [Book] {
        try fetchReadingTitles(context, batchSize: 0)
    }

    @inline(never)
    static func measuredBatchedFetch(_ context: ObjectContext, batchSize: Int) throws -> [Book] {
        try fetchReadingTitles(context, batchSize: batchSize)
    }

    static func fetchReadingTitles(_ context: ObjectContext, batchSize: Int) throws -> [Book] {
        var request = FetchRequest<Book>()
        request.returnsObjectsAsFaults = false
        request.fetchBatchSize = batchSize
        let books = try context.fetch(request)
        var characters = 0
        for book in books { characters &+= book.title.utf8.count }
        guard books.isEmpty || characters > 0 else { throw SandboxError("fetched titles are empty") }
        return books
    }

    /// Each book inserted and saved on its own in one private root context.
    static func singleSaves(_ rows: SourceData.BookRows.SubSequence, into coordinator: StoreCoordinator) async throws -> ScenarioOutcome {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "engine single saves")
        let seconds = try await context.perform { try timed { try measuredSingleSaves(rows, into: context) } }
        return ScenarioOutcome(objects: rows.count, measuredSeconds: seconds)
    }

    @inline(never)
    static func measuredSingleSaves(_ rows: SourceData.BookRows.SubSequence, into context: ObjectContext) throws {
        for row in rows {
            context.insertBook(row)
            try context.save()
        }
    }

    /// The seconds `body` takes.
    static func timed(_ body: () throws -> Void) rethrows -> Double {
        let clock = ContinuousClock()
        let start = clock.now
        try body()
        return (clock.now - start).sandboxSeconds
    }
}

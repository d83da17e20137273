import Dispatch
import Foundation
import Strata
import StrataStacks
import StrataSync

/// One device of the `sync` scenario: a stack on its own store (recording its history), an
/// ensemble on the shared cloud folder, and the wiring that brings the ensemble's saves into
/// the stack's main context:
///
/// - `mainContext`: main is a root context of the ensemble's coordinator; with
///   `automaticallyMergesChangesFromParent` it merges the ensemble's save like any other.
/// - `asyncSaving`: main is the writer's child, so ``Ensemble/observeMergedChanges(_:)``
///   merges each saved change set into the writer, then into main (in order, off the main queue).
/// - `hybrid`: the ensemble syncs through the stack's import coordinator (its own SQLite
///   connection), so its save reaches the writer and main the way an import's does
///   (`--merge-mode`), and never waits on main's connection.
///
/// For example:
/// ```swift
/// let peer = try await SyncScenarioPeer(name: "peer-1", stack: stack, cloud: cloud)
/// try await peer.ensemble.attach()
/// ```
final class SyncScenarioPeer: Sendable {
    /// The store options every peer opens with.
    static var stackOptions: StackOptions {
        var options = StackOptions()
        options.storeOptions.recordsHistory = true
        return options
    }

    let name: String
    let stack: any CoreStack
    let ensemble: Ensemble
    /// Which of the three wirings above brings merges into main.
    let route: String
    private let observation: ChangeObservation?
    /// The asyncSaving stack's deliveries into the writer and main, one after another.
    private let delivery = DispatchQueue(label: "sandbox.sync.delivery")

    /// Wires an ensemble named `SandboxSync` on `cloud` to `stack` (whose store records history).
    init(name: String, stack: any CoreStack, cloud: any CloudFileSystem, options: EnsembleOptions = EnsembleOptions()) async throws {
        self.name = name
        self.stack = stack
        let coordinator: StoreCoordinator
        var deliverTo: (writer: ObjectContext, main: ObjectContext)?
        switch stack {
        case let hybrid as HybridStack:
            coordinator = hybrid.importCoordinator
            route = "hybrid: the ensemble saves through the import coordinator; the stack merges it into the writer and main"
        case let async as AsyncSavingStack:
            coordinator = async.coordinator
            deliverTo = (async.writerContext, async.mainContext)
            route = "asyncSaving: observeMergedChanges merges each change set into the writer, then main"
        case let classic as MainContextStack:
            coordinator = classic.coordinator
            classic.mainContext.automaticallyMergesChangesFromParent = true
            route = "mainContext: main is a root context of the ensemble's coordinator (automaticallyMergesChangesFromParent)"
        default:
            throw SandboxError("the sync scenario does not know the stack \(stack.kind.rawValue)")
        }
        ensemble = try await Ensemble(identifier: "SandboxSync", coordinator: coordinator, cloudFileSystem: cloud,
                                      globalIdentifiers: .attribute("index"), options: options)
        if let (writer, main) = deliverTo {
            let queue = delivery
            observation = ensemble.observeMergedChanges { changes in
                queue.async {
                    // Blocks only this delivery queue; neither context waits on it.
                    writer.performAndWait { writer.merge(changes) }
                    main.performAndWait { main.merge(changes) }
                }
            }
        } else {
            observation = nil
        }
    }

    deinit { observation?.cancel() }

    /// Returns once what the last sync saved has reached main (at most `timeout` for the
    /// hybrid stack, whose notify-only mode never merges).
    func settleMain(mergesBefore: Int, timeout: Duration = .seconds(5)) async {
        let main = stack.mainContext
        if let hybrid = stack as? HybridStack {
            let deadline = ContinuousClock.now + timeout
            while hybrid.mergesIntoMain <= mergesBefore, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(2))
            }
        } else {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in delivery.async { done.resume() } }
        }
        _ = try? await main.perform { () }
    }

    /// Merges into main so far (the hybrid stack counts them; others 0).
    var mergesIntoMain: Int { (stack as? HybridStack)?.mergesIntoMain ?? 0 }

    /// Inserts `rows` as books in saves of `batch`, each linked to its author (`Author` with
    /// `index` = the row's author index, made once per peer), and makes them durable. Each
    /// save uses a fresh import context that fetches the authors already saved (a context
    /// kept across saves would hold temporary IDs its parent has since made permanent).
    func insertBooks(_ rows: SourceData.BookRows.SubSequence, batch: Int) async throws {
        var start = rows.startIndex
        while start < rows.endIndex {
            let chunk = Array(rows[start..<min(rows.endIndex, start + batch)])
            let importer = stack.newImportContext()
            try await importer.perform {
                var authors: [Int: Author] = [:]
                for author in try importer.fetch(FetchRequest<Author>()) { authors[Int(author.index)] = author }
                for row in chunk {
                    let author: Author
                    if let held = authors[row.authorIndex] {
                        author = held
                    } else {
                        author = importer.insert(Author.self)
                        author.name = "Author \(row.authorIndex)"
                        author.index = Int64(row.authorIndex)
                        authors[row.authorIndex] = author
                    }
                    importer.insertBook(row).author = author
                }
                try importer.save()
            }
            if importer.parent != nil { try await stack.save() }
            start += batch
        }
    }

    /// Sets every book's rating to `(rating + 1) % 6`, in saves of `batch`; returns the books changed.
    func bumpRatings(batch: Int) async throws -> Int {
        let importer = stack.newImportContext()
        let ids = try await importer.perform { try importer.fetchObjectIDs(FetchRequest<Book>()) }
        var start = 0
        while start < ids.count {
            let chunk = Array(ids[start..<min(ids.count, start + batch)])
            try await importer.perform {
                for object in importer.objects(with: chunk) {
                    guard let book = object as? Book else { continue }
                    book.rating = (book.rating + 1) % 6
                }
                try importer.save()
                importer.reset()
            }
            if importer.parent != nil { try await stack.save() }
            start += batch
        }
        return ids.count
    }

    /// Books in the store.
    func bookCount() async throws -> Int {
        let context = stack.newBackgroundContext()
        return try await context.perform { try context.count(for: FetchRequest<Book>()) }
    }

    /// Closes the stack's store connections (the ensemble's state closes when it goes).
    func close() {
        try? stack.mainContext.coordinator.close()
        if let hybrid = stack as? HybridStack { try? hybrid.importCoordinator.close() }
    }
}

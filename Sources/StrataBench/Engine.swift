/// The engine's side: import through a context, batch insert, and fetch, each on a fresh
/// store file. Opening the store and creating the schema are not timed; the timed bodies are
/// `@inline(never)` functions named `timedEngine…` so that callgrind can profile only them
/// (`--toggle-collect='*timedEngine*'`).
import Foundation
import Strata
import Synchronization

/// Opens a coordinator on a fresh file, or exits. Blocks: the bench has a synchronous `main`
/// (an async `main` parks the main thread in `dispatch_main`, which valgrind cannot run).
func openStore(_ model: ObjectModel, in directory: ScratchDirectory, _ name: String) -> StoreCoordinator {
    let url = directory.newFile(name)
    let result = Mutex<Result<StoreCoordinator, StrataError>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let opened: Result<StoreCoordinator, StrataError>
        do throws(StrataError) { opened = .success(try await StoreCoordinator(model: model, store: .sqlite(url))) } catch { opened = .failure(error) }
        result.withLock { $0 = opened }
        done.signal()
    }
    done.wait()
    switch result.withLock({ $0 }) {
    case .success(let coordinator)?: return coordinator
    case .failure(let error)?: fail("cannot open a store: \(error)")
    case nil: fail("opening the store did not finish")
    }
}

/// Saves `context`, or exits.
func save(_ context: ObjectContext) {
    do { try context.save() } catch { fail("save failed: \(error)") }
}

/// Context import: folders and notes inserted into a private context, saved once (or every
/// `batch` notes). Timed from the first insert to the last save returning.
func engineInsert(_ data: BenchData, model: ObjectModel, in directory: ScratchDirectory, runs: Int, batch: Int) -> [Duration] {
    var durations: [Duration] = []
    for _ in 0..<runs {
        let coordinator = openStore(model, in: directory, "engine-insert")
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "import")
        durations.append(context.performAndWait { timed { timedEngineInsert(data, into: context, batch: batch) } })
    }
    return durations
}

@inline(never)
func timedEngineInsert(_ data: BenchData, into context: ObjectContext, batch: Int) {
    let folders = (0..<BenchData.folderCount).map { i in
        let folder = context.insert(Folder.self)
        folder.name = "Folder \(i)"
        return folder
    }
    for (i, row) in data.notes.enumerated() {
        let note = context.insert(Note.self)
        note.title = row.title
        note.created = row.created
        note.rating = row.rating
        note.folder = folders[row.folderIndex]
        if batch > 0, (i + 1) % batch == 0 { save(context) }
    }
    save(context)
}

/// Saves 100 folders through a context (untimed) and returns their IDs.
func insertFolders(_ coordinator: StoreCoordinator) -> [ObjectID] {
    let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "folders")
    return context.performAndWait {
        let folders = (0..<BenchData.folderCount).map { i in
            let folder = context.insert(Folder.self)
            folder.name = "Folder \(i)"
            return folder
        }
        save(context)
        return folders.map(\.objectID)
    }
}

/// Batch insert: the folders are saved first (untimed); building the request's rows from the
/// source data and executing it are timed.
func engineBatchInsert(_ data: BenchData, model: ObjectModel, in directory: ScratchDirectory, runs: Int) -> [Duration] {
    var durations: [Duration] = []
    for _ in 0..<runs {
        let coordinator = openStore(model, in: directory, "engine-batch")
        let folderIDs = insertFolders(coordinator)
        durations.append(timed { timedEngineBatchInsert(data, folderIDs: folderIDs, coordinator: coordinator) })
    }
    return durations
}

@inline(never)
func timedEngineBatchInsert(_ data: BenchData, folderIDs: [ObjectID], coordinator: StoreCoordinator) {
    let request = BatchInsertRequest(
        entityName: "Note", keys: ["title", "created", "rating", "folder"],
        rows: data.notes.map { [.string($0.title), .date($0.created), .integer($0.rating), .objectID(folderIDs[$0.folderIndex])] })
    do {
        let ids = try coordinator.execute(request)
        if ids.count != data.notes.count { fail("batch insert returned \(ids.count) IDs") }
    } catch {
        fail("batch insert failed: \(error)")
    }
}

/// Fetch: one store filled once by batch insert (untimed); each run uses a new context and
/// reads every note's `title` once. With `batchSize` > 0 the objects come back as paged faults.
func engineFetch(_ data: BenchData, model: ObjectModel, in directory: ScratchDirectory, runs: Int, batchSize: Int) -> [Duration] {
    let coordinator = openStore(model, in: directory, "engine-fetch")
    timedEngineBatchInsert(data, folderIDs: insertFolders(coordinator), coordinator: coordinator)
    var durations: [Duration] = []
    for _ in 0..<runs {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "fetch")
        durations.append(context.performAndWait {
            var kept: [Note] = []
            let time = timed { kept = timedEngineFetch(context, batchSize: batchSize) }
            if kept.count != data.notes.count { fail("fetch found \(kept.count) notes, expected \(data.notes.count)") }
            kept = []   // objects are released on the context's queue, untimed
            return time
        })
    }
    return durations
}

@inline(never)
func timedEngineFetch(_ context: ObjectContext, batchSize: Int) -> [Note] {
    var request = FetchRequest<Note>()
    request.returnsObjectsAsFaults = false
    request.fetchBatchSize = batchSize
    let notes: [Note]
    do { notes = try context.fetch(request) } catch { fail("fetch failed: \(error)") }
    var characters = 0
    for note in notes { characters &+= note.title.utf8.count }
    if characters == 0 { fail("fetched titles are empty") }
    return notes
}

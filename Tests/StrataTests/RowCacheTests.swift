import Foundation
import GRDB
import Synchronization
import Testing
@testable import Strata

/// The coordinator's row cache, shared by its contexts (Core Data's row cache), and each
/// context's `stalenessInterval`: a fault on a row another context just read takes it from the
/// cache; 0 always reads SQLite; a positive interval reuses rows until it passes; saves evict
/// what they wrote; another coordinator's commit, a noticed commit of another process, and a
/// refresh never let an old row through; the cache is bounded.
@Suite struct RowCacheTests {
    /// A clock the tests move by hand (monotonic nanoseconds).
    final class ManualClock: Sendable {
        let nanoseconds = Atomic<UInt64>(1_000_000_000)
        func advance(seconds: Double) { nanoseconds.add(UInt64(seconds * 1e9), ordering: .relaxed) }
        var read: @Sendable () -> UInt64 { { [self] in nanoseconds.load(ordering: .relaxed) } }
    }

    /// Saves notes titled `titles` and returns their IDs.
    func seed(_ context: ObjectContext, _ titles: [String]) async throws -> [ObjectID] {
        try await context.perform {
            let notes = titles.map { title in
                let note = context.insert(Note.self)
                note.title = title
                note.uniqueIdentifier = UUID().uuidString
                return note
            }
            try context.save()
            return notes.map(\.objectID)
        }
    }

    /// Fetches every note in `context` (values loaded).
    func fetchAll(_ context: ObjectContext) async throws -> [String] {
        try await context.perform { try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")])).map(\.title) }
    }

    /// The title of `id` read through a new fault in `context` (the context is reset first, so
    /// the fault fires even if it held the object).
    func faultTitle(_ context: ObjectContext, _ id: ObjectID) async throws -> String {
        try await context.perform {
            context.reset()
            return (context.object(with: id) as? Note)?.title ?? "<not a note>"
        }
    }

    /// The SELECT statements a block ran on `coordinator`.
    func selects<T>(_ coordinator: StoreCoordinator, _ body: () async throws -> T) async throws -> (T, [String]) {
        let (result, sql) = try await coordinator.recordingSQL { try await body() }
        return (result, sql.filter { $0.hasPrefix("SELECT") })
    }

    /// Writes a title the way another process would: its own SQLite connection, no coordinator.
    func writeElsewhere(_ url: URL, key: Int64, title: String) throws {
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in
            try db.execute(sql: "UPDATE Note SET title = ?, _version = _version + 1 WHERE _id = ?", arguments: [title, key])
        }
        try queue.close()
    }

    @Test func aSecondContextFaultingARowTheFirstFetchedReadsNoSQL() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, ["x", "y", "z"])
        #expect(try await fetchAll(a) == ["x", "y", "z"])
        let before = coordinator.rowCache.lookups.hits
        let (title, sql) = try await selects(coordinator) { try await faultTitle(b, ids[1]) }
        #expect(title == "y")
        #expect(sql.isEmpty, "\(sql)")
        #expect(coordinator.rowCache.lookups.hits == before + 1)
        // A page of faults is answered from the cache too.
        let (titles, pageSQL) = try await selects(coordinator) {
            try await b.perform {
                var request = FetchRequest<Note>(sortKeys: [SortKey("title")])
                request.returnsObjectsAsFaults = true
                return try b.fetch(request).map(\.title)
            }
        }
        #expect(titles == ["x", "y", "z"])
        #expect(pageSQL.count == 1, "\(pageSQL)")   // the fetch's keys; the page's rows come from the cache
        #expect(pageSQL.allSatisfy { $0.hasPrefix("SELECT t0._id FROM") }, "\(pageSQL)")
    }

    @Test func aPageWithSomeRowsCachedReadsOnlyTheOthers() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, ["a", "b", "c", "d"])
        _ = try await faultTitle(a, ids[1])
        _ = try await faultTitle(a, ids[3])
        #expect(coordinator.rowCache.count == 2)
        let (titles, sql) = try await selects(coordinator) {
            try await b.perform {
                var request = FetchRequest<Note>(sortKeys: [SortKey("title")])
                request.returnsObjectsAsFaults = true
                return try b.fetch(request).map(\.title)
            }
        }
        #expect(titles == ["a", "b", "c", "d"])
        let rowReads = sql.filter { $0.contains("IN (") }
        #expect(rowReads.count == 1, "\(sql)")
        #expect(rowReads.first?.hasSuffix("IN (?,?)") == true, "\(sql)")   // a and c only
        #expect(coordinator.rowCache.count == 4)
    }

    /// NaN is not an age: it counts as 0 (always read) instead of trapping at the next fault.
    @Test func aNaNIntervalCountsAsZero() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, ["x"])
        _ = try await fetchAll(a)
        b.stalenessInterval = .nan
        #expect(b.stalenessInterval == 0)
        #expect(try await faultTitle(b, ids[0]) == "x")
    }

    @Test func stalenessZeroAlwaysReadsTheStore() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, ["x"])
        _ = try await fetchAll(a)
        b.stalenessInterval = 0   // from any thread, like the other settings
        #expect(b.stalenessInterval == 0)
        for _ in 0..<2 {
            let (title, sql) = try await selects(coordinator) { try await faultTitle(b, ids[0]) }
            #expect(title == "x")
            #expect(sql.count == 1, "\(sql)")
        }
    }

    @Test func aPositiveIntervalReusesRowsUntilItPasses() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let clock = ManualClock()
        coordinator.rowCache.setClock(clock.read)
        let ids = try await seed(a, ["x"])
        _ = try await fetchAll(a)   // read at 1 s
        b.stalenessInterval = 10
        clock.advance(seconds: 9)
        let (fresh, none) = try await selects(coordinator) { try await faultTitle(b, ids[0]) }
        #expect(fresh == "x")
        #expect(none.isEmpty, "\(none)")
        clock.advance(seconds: 2)   // the row is 11 s old now
        let (old, one) = try await selects(coordinator) { try await faultTitle(b, ids[0]) }
        #expect(old == "x")
        #expect(one.count == 1, "\(one)")
        // That read refreshed the cache: the row is young again.
        let (again, noneAgain) = try await selects(coordinator) { try await faultTitle(b, ids[0]) }
        #expect(again == "x")
        #expect(noneAgain.isEmpty, "\(noneAgain)")
    }

    @Test func aSaveEvictsTheRowsItWrote() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, ["x", "y"])
        _ = try await fetchAll(a)
        let count = coordinator.rowCache.count
        #expect(count == 2)
        try await a.perform {
            let note = try Note.in(a, ids[0])
            note.title = "x2"
            try a.save()
        }
        #expect(coordinator.rowCache.count == 1)   // the other row stays
        #expect(try await faultTitle(b, ids[0]) == "x2")
        let (title, sql) = try await selects(coordinator) { try await faultTitle(b, ids[1]) }
        #expect(title == "y")
        #expect(sql.isEmpty, "\(sql)")
        // A delete evicts too, and the fault then finds no row.
        try await a.perform {
            a.delete(try Note.in(a, ids[1]))
            try a.save()
        }
        let c = ObjectContext(.privateQueue, coordinator: coordinator)
        await #expect(throws: StrataError.self) { try await c.perform { _ = try c.existingObject(with: ids[1]) } }
    }

    @Test func anotherCoordinatorsSaveIsNeverServedStale() async throws {
        let dir = TemporaryDirectory()
        let (first, a) = try await makeStore(dir)
        let second = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file("store.sqlite")))
        defer { try? first.close(); try? second.close() }
        let b = ObjectContext(.privateQueue, coordinator: first)
        let ids = try await seed(a, ["x", "y"])
        _ = try await fetchAll(a)
        #expect(first.rowCache.count == 2)
        let other = ObjectContext(.privateQueue, coordinator: second)
        try await other.perform {
            let note = try Note.in(other, ids[0])
            note.title = "from the other coordinator"
            try other.save()
        }
        #expect(try await faultTitle(b, ids[0]) == "from the other coordinator")
        #expect(try await faultTitle(b, ids[1]) == "y")
    }

    @Test func anotherProcessesWriteIsDroppedOnceNoticed() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, ["x", "y"])
        _ = try await fetchAll(a)
        try writeElsewhere(dir.file(), key: ids[0].key, title: "elsewhere")
        // Not noticed yet (nothing read the store since): with the default interval (-1) the
        // cached row is used, as in Core Data…
        #expect(try await faultTitle(b, ids[0]) == "x")
        #expect(coordinator.rowCache.count == 2)
        // …and a context with interval 0 reads the store. That read's connection (GRDB reuses
        // the first free reader: the fetch's) saw the file change while this process committed
        // nothing, so the cache is emptied.
        let strict = ObjectContext(.privateQueue, coordinator: coordinator)
        strict.stalenessInterval = 0
        #expect(try await faultTitle(strict, ids[0]) == "elsewhere")
        #expect(coordinator.rowCache.count <= 1)   // at most the row that read brought
        #expect(try await faultTitle(b, ids[1]) == "y")
        // Polling notices it and empties the cache.
        _ = try await fetchAll(a)
        try writeElsewhere(dir.file(), key: ids[0].key, title: "elsewhere 2")
        #expect(try coordinator.hasExternalChanges())
        #expect(coordinator.rowCache.count == 0)
        #expect(try await faultTitle(b, ids[0]) == "elsewhere 2")
        // So does this coordinator's next save, whatever it writes.
        _ = try await fetchAll(a)
        #expect(coordinator.rowCache.count == 2)
        try writeElsewhere(dir.file(), key: ids[0].key, title: "elsewhere 3")
        try await a.perform {
            let note = a.insert(Note.self)
            note.uniqueIdentifier = "unrelated"
            try a.save()
        }
        #expect(coordinator.rowCache.count == 0)
        #expect(try await faultTitle(b, ids[0]) == "elsewhere 3")
    }

    @Test func refreshWithoutMergingReadsTheStoreWithTheDefaultInterval() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let other = ObjectContext(.privateQueue, coordinator: coordinator)   // two contexts: the cache is on
        let ids = try await seed(a, ["x"])
        #expect(a.stalenessInterval == -1)
        try await a.perform {
            let note = try #require(try a.fetch(FetchRequest<Note>()).first)
            #expect(note.title == "x")
        }
        #expect(coordinator.rowCache.count == 1)
        #expect(try await faultTitle(other, ids[0]) == "x")
        try writeElsewhere(dir.file(), key: ids[0].key, title: "elsewhere")
        // Core Data's gotcha: the refreshed fault fires from the row cache and shows "x". Here
        // a refresh evicts the row, so the fault reads the store.
        let title = try await a.perform {
            let note = try Note.in(a, ids[0])
            a.refresh(note, mergeChanges: false)
            return note.title
        }
        #expect(title == "elsewhere")
        // refreshAllObjects (and a refresh that keeps changes) read the store as well.
        try writeElsewhere(dir.file(), key: ids[0].key, title: "elsewhere 2")
        let all = try await a.perform {
            a.refreshAllObjects()
            return try Note.in(a, ids[0]).title
        }
        #expect(all == "elsewhere 2")
        try writeElsewhere(dir.file(), key: ids[0].key, title: "elsewhere 3")
        let merged = try await a.perform {
            let note = try Note.in(a, ids[0])
            note.rating = 5
            a.refresh(note, mergeChanges: true)
            return (note.title, note.rating)
        }
        #expect(merged.0 == "elsewhere 3")
        #expect(merged.1 == 5)
    }

    @Test func theCacheIsBounded() async throws {
        let dir = TemporaryDirectory()
        var options = StoreOptions()
        options.rowCacheCapacity = 50
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file(), options: options))
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let a = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, (0..<200).map { String(format: "n%03d", $0) })
        // A fetch larger than the cache adds nothing (it would only flush it).
        _ = try await fetchAll(a)
        #expect(coordinator.rowCache.count == 0)
        // Faults one by one: the cache keeps the 50 read last.
        for id in ids { _ = try await faultTitle(b, id) }
        #expect(coordinator.rowCache.count == 50)
        let (recent, none) = try await selects(coordinator) { try await faultTitle(b, ids[199]) }
        #expect(recent == "n199")
        #expect(none.isEmpty, "\(none)")
        let (early, one) = try await selects(coordinator) { try await faultTitle(b, ids[0]) }
        #expect(early == "n000")
        #expect(one.count == 1, "\(one)")
        #expect(coordinator.rowCache.count == 50)
        // A read larger than the cache still refreshes the rows that are cached.
        let cache = coordinator.rowCache
        var rows = try coordinator.readRows(of: ids[0].entity, keys: ids.map(\.key), staleness: 0)
        #expect(rows.count == 200)
        #expect(cache.count == 50)
        let titleSlot = try #require(ids[0].entity.attributes.firstIndex { $0.name == "title" })
        for i in rows.indices { rows[i].attributes[titleSlot] = .string("refreshed") }
        cache.store(rows, token: cache.token())
        #expect(cache.count == 50)
        #expect(try await faultTitle(b, ids[199]) == "refreshed")
    }

    @Test func capacityZeroTurnsTheCacheOff() async throws {
        let dir = TemporaryDirectory()
        var options = StoreOptions()
        options.rowCacheCapacity = 0
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file(), options: options))
        defer { try? coordinator.close() }
        let a = ObjectContext(.privateQueue, coordinator: coordinator)
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, ["x"])
        _ = try await fetchAll(a)
        #expect(coordinator.rowCache.count == 0)
        let (title, sql) = try await selects(coordinator) { try await faultTitle(b, ids[0]) }
        #expect(title == "x")
        #expect(sql.count == 1, "\(sql)")
    }

    @Test func batchRequestsEmptyTheCache() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await seed(a, ["x", "y"])
        _ = try await fetchAll(a)
        #expect(coordinator.rowCache.count == 2)
        _ = try coordinator.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["title": .string("batch")]))
        #expect(coordinator.rowCache.count == 0)
        #expect(try await faultTitle(b, ids[1]) == "batch")
    }

    @Test func aCoordinatorWithOneContextKeepsNoRows() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let ids = try await seed(a, ["x"])
        _ = try await fetchAll(a)
        #expect(!coordinator.rowCache.isShared)
        #expect(coordinator.rowCache.count == 0)
        let (title, sql) = try await selects(coordinator) { try await faultTitle(a, ids[0]) }
        #expect(title == "x")
        #expect(sql.count == 1, "\(sql)")
        // A second context turns it on.
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        _ = try await fetchAll(b)
        #expect(coordinator.rowCache.isShared)
        #expect(coordinator.rowCache.count == 1)
    }

    @Test func aReadThatBeganBeforeACommitDoesNotPutTheOldRowBack() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let ids = try await seed(a, ["x"])
        let cache = coordinator.rowCache
        let b = ObjectContext(.privateQueue, coordinator: coordinator)
        #expect(cache.isShared)   // a and b
        // Timeline: 1. a read takes its token; 2. a save commits and evicts the row; 3. the read
        // finishes with the row as it was before the save and offers it to the cache.
        let token = cache.token()
        let rows = try coordinator.readRows(of: ids[0].entity, keys: [ids[0].key], staleness: 0)
        #expect(cache.count == 1)
        cache.didCommit(evicting: [ids[0]])
        #expect(cache.count == 0)
        cache.store(rows, token: token)
        #expect(cache.count == 0)
        // A token taken after the commit keeps its rows.
        cache.store(rows, token: cache.token())
        #expect(cache.count == 1)
        withExtendedLifetime(b) {}
    }

    @Test func aChildWithNothingPendingAboveFaultsFromTheCache() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, a) = try await makeStore(dir)
        defer { try? coordinator.close() }
        let child = ObjectContext(.privateQueue, parent: a)
        let ids = try await seed(a, ["x"])
        _ = try await fetchAll(a)
        let (title, sql) = try await selects(coordinator) { try await faultTitle(child, ids[0]) }
        #expect(title == "x")
        #expect(sql.isEmpty, "\(sql)")
        child.stalenessInterval = 0
        let (again, one) = try await selects(coordinator) { try await faultTitle(child, ids[0]) }
        #expect(again == "x")
        #expect(one.count == 1, "\(one)")
    }
}

extension Note {
    /// The note `id` in `context`, or a thrown error.
    static func `in`(_ context: ObjectContext, _ id: ObjectID) throws -> Note {
        guard let note = try context.existingObject(with: id) as? Note else { throw StrataError(.objectNotFound, "not a note") }
        return note
    }
}

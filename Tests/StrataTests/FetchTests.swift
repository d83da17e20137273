import Foundation
import Testing
@testable import Strata

@Suite struct FetchTests {
    /// A store with `count` notes titled n0…, ratings 0…4, in two folders.
    func seeded(_ count: Int) async throws -> (TemporaryDirectory, StoreCoordinator) {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform {
            let folders = ["A", "B"].map { name -> Folder in let f = context.insert(Folder.self); f.name = name; return f }
            for i in 0..<count {
                let note = context.insert(Note.self)
                note.title = "n\(i)"
                note.rating = Int16(i % 5)
                note.folder = folders[i % 2]
            }
            try context.save()
        }
        return (dir, coordinator)
    }

    @Test func batchSizeReadsOnePageAtATime() async throws {
        let (dir, coordinator) = try await seeded(100)
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        var request = FetchRequest<Note>()
        request.fetchBatchSize = 10
        let paged = request
        let (_, fetchSQL) = try await coordinator.recordingSQL {
            try await context.perform { _ = try context.fetch(paged) }
        }
        #expect(fetchSQL.count == 1)
        #expect(fetchSQL.first?.hasPrefix("SELECT t0._id FROM") == true)
        let (titles, pageSQL) = try await coordinator.recordingSQL {
            try await context.perform { () -> [String] in
                let notes = try context.fetch(paged)
                #expect(notes.allSatisfy { $0.isFault })
                let first = notes[0].title, second = notes[9].title   // same page: one read
                #expect(notes[10].isFault)                             // next page untouched
                #expect(notes[11].isFault)
                return [first, second, notes[10].title]                // second page: one more read
            }
        }
        #expect(titles == ["n0", "n9", "n10"])
        let pageReads = pageSQL.filter { $0.contains("WHERE t0._id IN") }
        #expect(pageReads.count == 2)
        #expect(pageReads.allSatisfy { $0.components(separatedBy: "?").count - 1 == 10 })
    }

    @Test func fetchLimitOffsetAndSortWork() async throws {
        let (dir, coordinator) = try await seeded(20)
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            var request = FetchRequest<Note>(sortKeys: [SortKey("rating", ascending: false)])
            request.fetchLimit = 5
            request.fetchOffset = 2
            let notes = try context.fetch(request)
            #expect(notes.count == 5)
            #expect(notes.map(\.rating) == [4, 4, 3, 3, 3])
            #expect(try context.count(for: request) == 5)
            #expect(try context.fetchObjectIDs(request) == notes.map(\.objectID))
        }
    }

    @Test func pendingChangesAreIncluded() async throws {
        let (dir, coordinator) = try await seeded(4)
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let all = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
            context.delete(all[0])
            let fresh = context.insert(Note.self)
            fresh.title = "zz"
            #expect(try context.count(for: FetchRequest<Note>()) == 4)
            let titles = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")])).map(\.title)
            #expect(titles == ["n1", "n2", "n3", "zz"])
            var storeOnly = FetchRequest<Note>()
            storeOnly.includesPendingChanges = false
            #expect(try context.fetch(storeOnly).count == 4)
            #expect(try context.fetchObjectIDs(FetchRequest<Note>()).contains(fresh.objectID))
        }
    }

    /// A note that did not change still matches differently when a related object changed in
    /// memory: the fetch must not trust SQL's answer (the stored folder name) for it.
    @Test func pendingChangesOfRelatedObjectsAreIncluded() async throws {
        let (dir, coordinator) = try await seeded(6)   // n0, n2, n4 in A; n1, n3, n5 in B
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let result = try await context.perform { () -> [String: [String]] in
            let tag = context.insert(Tag.self)
            tag.label = "red"
            tag.notes = Set(try context.fetch(FetchRequest<Note>(predicate: try ObjectPredicate("title == 'n1'"))))
            try context.save()
            let folders = try context.fetch(FetchRequest<Folder>(sortKeys: [SortKey("name")]))
            folders[0].name = "Z"   // A, renamed in memory; its notes are untouched
            let titles = { (predicate: String, sort: [SortKey], limit: Int) throws -> [String] in
                var request = FetchRequest<Note>(predicate: try ObjectPredicate(predicate), sortKeys: sort)
                request.fetchLimit = limit
                return try context.fetch(request).map(\.title)
            }
            let counted = try context.count(for: FetchRequest<Note>(predicate: try ObjectPredicate("folder.name == 'Z'")))
            let ids = try context.fetchObjectIDs(FetchRequest<Note>(predicate: try ObjectPredicate("folder.name == 'A'")))
            tag.label = "blue"      // only the tag changes: n1, tagged with it, must be re-tested
            return [
                "renamed": try titles("folder.name == 'Z'", [SortKey("title")], 0),
                "old name": try titles("folder.name == 'A'", [], 0),
                "by folder, limited": try titles("TRUEPREDICATE", [SortKey("folder.name"), SortKey("title")], 4),
                "count": [String(counted)],
                "ids": ids.map { "\($0)" },
                "blue": try titles("ANY tags.label == 'blue'", [], 0),
                "red": try titles("ANY tags.label == 'red'", [], 0),
            ]
        }
        #expect(result["renamed"] == ["n0", "n2", "n4"])
        #expect(result["old name"] == [])
        #expect(result["by folder, limited"] == ["n1", "n3", "n5", "n0"])   // B before Z now
        #expect(result["count"] == ["3"])
        #expect(result["ids"] == [])
        #expect(result["blue"] == ["n1"])
        #expect(result["red"] == [])
        #expect(try await context.perform { context.updatedObjects.map(\.entity.name).sorted() } == ["Folder", "Tag"])
        // A child sees its parent's renamed folder too; then its own rename on top.
        let child = ObjectContext(.privateQueue, parent: context)
        let fromChild = try await child.perform { () -> [[String]] in
            let request = FetchRequest<Note>(predicate: try ObjectPredicate("folder.name == 'Z'"), sortKeys: [SortKey("title")])
            let before = try child.fetch(request).map(\.title)
            let folderB = try child.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate("name == 'B'")))[0]
            folderB.name = "Z"
            return [before, try child.fetch(request).map(\.title), [String(try child.count(for: request))]]
        }
        #expect(fromChild == [["n0", "n2", "n4"], ["n0", "n1", "n2", "n3", "n4", "n5"], ["6"]])
    }

    @Test func dictionariesReturnRequestedProperties() async throws {
        let (dir, coordinator) = try await seeded(3)
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            var request = FetchRequest<Note>(sortKeys: [SortKey("title")])
            request.propertiesToFetch = ["title", "folder"]
            let rows = try context.fetchDictionaries(request)
            #expect(rows.count == 3)
            #expect(rows[0]["title"] == .string("n0"))
            guard case .objectID(let folderID)? = rows[0]["folder"] else { Issue.record("no folder id"); return }
            #expect(folderID.entity.name == "Folder")
            #expect(context.registeredObjects.isEmpty)   // no objects were made
            request.propertiesToFetch = ["nope"]
            #expect(throws: StrataError.self) { try context.fetchDictionaries(request) }
        }
    }

    @Test func prefetchingReadsRelationshipsUpFront() async throws {
        let (dir, coordinator) = try await seeded(10)
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        var request = FetchRequest<Folder>()
        request.relationshipKeyPathsForPrefetching = ["notes"]
        let prefetching = request
        let (_, sql) = try await coordinator.recordingSQL {
            try await context.perform { () -> Int in
                let folders = try context.fetch(prefetching)
                return folders.reduce(0) { $0 + $1.notes.reduce(0) { $0 + $1.title.count } }
            }
        }
        #expect(sql.count == 3)   // folders, note keys, note rows; touching notes fired nothing more
    }

    @Test func faultsFireTogetherAndAwakeFromFetchRuns() async throws {
        let (dir, coordinator) = try await seeded(6)
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        // Each array holds, per note, (is a fault, times awoken from fetch).
        let (states, sql) = try await coordinator.recordingSQL {
            try await context.perform { () -> (before: [Bool], beforeCounts: [Int], after: [Bool], afterCounts: [Int]) in
                var request = FetchRequest<Note>()
                request.returnsObjectsAsFaults = true
                let notes = try context.fetch(request)
                let before = notes.map(\.isFault), beforeCounts = notes.map(\.awakeFromFetchCount)
                _ = notes[0].title   // fires the batch: all six are read
                return (before, beforeCounts, notes.map(\.isFault), notes.map(\.awakeFromFetchCount))
            }
        }
        #expect(sql.count == 2)   // keys, then one batch read for all six
        #expect(states.before == Array(repeating: true, count: 6))
        #expect(states.beforeCounts == Array(repeating: 0, count: 6))   // not read, not awoken
        #expect(states.after == Array(repeating: false, count: 6))
        #expect(states.afterCounts == Array(repeating: 1, count: 6))    // the batch woke each once
        let later = try await context.perform { () -> (refetched: [Int], freshAwoken: Bool, freshFetched: Bool) in
            // Touching and refetching loaded objects does not wake them again.
            let notes = try context.fetch(FetchRequest<Note>())
            _ = notes.map(\.title)
            // An inserted object is not awoken from fetch, even when a fetch returns it.
            let fresh = context.insert(Note.self)
            fresh.title = "new"
            let fetched = try context.fetch(FetchRequest<Note>()).contains(fresh)
            return (notes.map(\.awakeFromFetchCount), fresh.awakenedFromFetch, fetched)
        }
        #expect(later.refetched == Array(repeating: 1, count: 6))
        #expect(later.freshFetched)
        #expect(!later.freshAwoken)
        // A fetch that reads full rows (no faults) wakes each object once, right away.
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let direct = try await other.perform { () -> (faults: [Bool], counts: [Int]) in
            let notes = try other.fetch(FetchRequest<Note>())
            return (notes.map(\.isFault), notes.map(\.awakeFromFetchCount))
        }
        #expect(direct.faults == Array(repeating: false, count: 6))
        #expect(direct.counts == Array(repeating: 1, count: 6))
    }

    /// A full-row fetch over objects the context already holds loaded, holds as faults, and
    /// does not hold: only the ones read now are awakened, the held ones are returned as the
    /// same instances, and each new object owns its values (a change to one is its own).
    @Test func aFetchOverHeldObjectsAwakensOnlyWhatItReadNow() async throws {
        let (dir, coordinator) = try await seeded(6)
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let result = try await context.perform { () -> (titles: [String], counts: [Int], same: Bool, faultWasFilled: Bool) in
            let byTitle = [SortKey("title")]
            var middle = FetchRequest<Note>(sortKeys: byTitle)
            middle.fetchOffset = 2
            middle.fetchLimit = 2
            let held = try context.fetch(middle)                                  // n2, n3 loaded and awoken
            let lastID = try context.fetchObjectIDs(FetchRequest<Note>(sortKeys: byTitle))[5]
            let fault = context.object(with: lastID)                              // n5 registered as a fault
            let wasFault = fault.isFault
            let all = try context.fetch(FetchRequest<Note>(sortKeys: byTitle))
            let same = all[2] === held[0] && all[3] === held[1] && all[5] === fault
            all[0].title = "changed"
            return (all.map(\.title), all.map(\.awakeFromFetchCount), same, wasFault && !fault.isFault)
        }
        #expect(result.titles == ["changed", "n1", "n2", "n3", "n4", "n5"])
        #expect(result.counts == Array(repeating: 1, count: 6))   // the held two are not awoken again
        #expect(result.same)
        #expect(result.faultWasFilled)
        // The store and another context still read the saved title: the row's values moved
        // into the object, nothing else shares them.
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        let stored = try await other.perform { try other.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")])).map(\.title) }
        #expect(stored == ["n0", "n1", "n2", "n3", "n4", "n5"])
    }

    @Test func batchInsertWritesRowsWithoutObjects() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform {
            let folder = context.insert(Folder.self)
            try context.save()
            let ids = try context.execute(BatchInsertRequest(entityName: "Note", keys: ["title", "folder", "uniqueIdentifier"], rows: (0..<50).map {
                [.string("b\($0)"), .objectID(folder.objectID), .string("u\($0)")]
            }))
            #expect(ids.count == 50)
            #expect(Set(ids).count == 50)
            #expect(context.registeredObjects.count == 1)
            let notes = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
            #expect(notes.count == 50)
            #expect(notes.allSatisfy { $0.folder === folder })
            // A nil required value is a validation error and nothing is written.
            do {
                _ = try coordinator.execute(BatchInsertRequest(entityName: "Note", keys: ["title"], rows: [[.string("ok")], [.null]]))
                Issue.record("expected validation error")
            } catch let error as StrataError { #expect(error.code == .validation) }
            // A unique collision is a conflict and nothing is written.
            do {
                _ = try coordinator.execute(BatchInsertRequest(entityName: "Note", keys: ["uniqueIdentifier"], rows: [[.string("new")], [.string("u1")]]))
                Issue.record("expected conflict")
            } catch let error as StrataError { #expect(error.code == .conflict) }
            #expect(try context.count(for: FetchRequest<Note>()) == 50)
            #expect(throws: StrataError.self) { try context.execute(BatchInsertRequest(entityName: "Note", keys: ["nope"], rows: [[.null]])) }
        }
    }
}

@Suite struct PendingWindowTests {
    /// A limited fetch in a context with unsaved changes reads only the window it can need
    /// (offset + limit + changed objects), and still returns what a full read would.
    @Test func limitedFetchWithUnsavedChangesReadsAWindow() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform {
            for i in 0..<200 { context.insert(Note.self).title = String(format: "n%03d", i) }
            try context.save()
        }
        var request = FetchRequest<Note>(sortKeys: [SortKey("title")])
        request.fetchLimit = 5
        request.fetchOffset = 2
        let limited = request
        let (titles, sql) = try await coordinator.recordingSQL {
            try await context.perform { () throws -> [String] in
                let all = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
                all[0].title = "zzz"                      // leaves the window
                context.delete(all[3])                     // leaves it too
                context.insert(Note.self).title = "n000a"  // enters it
                return try context.fetch(limited).map(\.title)
            }
        }
        #expect(titles == ["n002", "n004", "n005", "n006", "n007"])
        let windowed = sql.last { $0.contains("ORDER BY") }
        #expect(windowed?.contains("LIMIT") == true)
    }
}

@Suite struct ObjectsWithIDsTests {
    /// `objects(with:)` returns faults that are read together: touching one reads all of them.
    @Test func faultsFromManyIDsFireTogether() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, writer) = try await makeStore(dir)
        let ids = try await writer.perform { () throws -> [ObjectID] in
            let notes = (0..<12).map { i -> Note in let n = writer.insert(Note.self); n.title = "t\(i)"; return n }
            try writer.save()
            return notes.map(\.objectID)
        }
        let reader = ObjectContext(.privateQueue, coordinator: coordinator)
        let (titles, sql) = try await coordinator.recordingSQL {
            try await reader.perform { () -> [String] in
                let objects = reader.objects(with: ids)
                #expect(objects.allSatisfy { $0.isFault })
                return objects.compactMap { ($0 as? Note)?.title }
            }
        }
        #expect(titles == (0..<12).map { "t\($0)" })
        #expect(sql.filter { $0.contains("WHERE t0._id IN") }.count == 1)
    }
}

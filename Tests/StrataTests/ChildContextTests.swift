import Foundation
import Testing
@testable import Strata

@Suite struct ChildContextTests {
    @Test func childSavePushesIntoParentAndRootSaveWritesOnce() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, root) = try await makeStore(dir)
        let child = ObjectContext(.privateQueue, parent: root)
        let noteID = try await child.perform {
            let folder = child.insert(Folder.self)
            folder.name = "Inbox"
            let note = child.insert(Note.self)
            note.title = "from child"
            note.folder = folder
            try child.save()
            #expect(!child.hasChanges)
            return note.objectID
        }
        #expect(noteID.isTemporary)
        // Nothing on disk yet; the parent holds the changes.
        let stored = try await coordinator.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Note") }
        #expect(stored == 0)
        let (_, sql) = try await coordinator.recordingSQL {
            try await root.perform { () throws -> Void in
                #expect(root.hasChanges)
                let note = try #require(root.object(with: noteID) as? Note)
                #expect(note.title == "from child")
                #expect(note.folder?.name == "Inbox")
                #expect(note.folder?.notes.contains(note) == true)
                try root.save()
            }
        }
        #expect(sql.filter { $0.hasPrefix("INSERT INTO \"Note\"") }.count == 1)
        #expect(try await coordinator.database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM Note") } == 1)
    }

    /// The parent tells its observers what a child's push changed there, with the values it
    /// now holds: an attribute-only update by the child's changed keys, a relationship change
    /// with the parent's objects.
    @Test func theParentsObserversHearThePushedValues() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeStore(dir)
        let (noteID, otherID, folderID) = try await root.perform { () throws -> (ObjectID, ObjectID, ObjectID) in
            let note = root.insert(Note.self), other = root.insert(Note.self), folder = root.insert(Folder.self)
            note.title = "saved"
            other.title = "other"
            folder.name = "Inbox"
            try root.save()
            return (note.objectID, other.objectID, folder.objectID)
        }
        let received = Received<ChangeSet>()
        let token = root.observeChanges { received.append($0) }
        defer { token.cancel() }
        let child = ObjectContext(.privateQueue, parent: root)
        try await child.perform {
            try #require(try child.existingObject(with: noteID) as? Note).title = "pushed"
            let other = try #require(try child.existingObject(with: otherID) as? Note)
            other.rating = 3
            other.folder = try #require(try child.existingObject(with: folderID) as? Folder)
            try child.save()
        }
        try await root.perform {}   // the push is applied on the parent's queue
        let changes = try #require(received.all.first)
        #expect(changes.updated[noteID] == ["title": .string("pushed")])
        #expect(changes.updated[otherID] == ["rating": .integer(3), "folder": .objectID(folderID)])
    }

    /// A push that changes saved rows the parent holds only as faults reads them a page at a
    /// time: one read per row would be 1 200 read transactions on the parent's (often the
    /// main) queue.
    @Test func pushOntoParentFaultsReadsThemInPages() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, root) = try await makeStore(dir)
        let count = 1_200
        let ids = try await root.perform { () throws -> [ObjectID] in
            for i in 0..<count { root.insert(Note.self).title = "n\(i)" }
            try root.save()
            return try root.fetchObjectIDs(FetchRequest<Note>())
        }
        try await root.perform {
            root.reset()
            for id in ids { #expect(root.object(with: id).isFault) }   // held here, never read
        }
        let child = ObjectContext(.privateQueue, parent: root)
        try await child.perform {
            for note in try child.fetch(FetchRequest<Note>()) { note.title += " edited" }
        }
        let sql = try await sqlOfPush(coordinator, into: root) { try await child.perform { try child.save() } }
        let rowReads = sql.filter { $0.hasPrefix("SELECT") && $0.contains("_id IN") }
        #expect(rowReads.count <= 3, "\(rowReads.count) row reads for \(count) faults")
        let titles = try await root.perform { ids.map { (root.object(with: $0) as? Note)?.title ?? "" } }
        #expect(titles.allSatisfy { $0.hasSuffix(" edited") })
    }

    /// Saved notes the root holds only as faults, and a child that changed every title (not yet
    /// saved): the child's change batch and the rows read for its push. The row cache holds
    /// fewer rows than the push changes, so the root's own faults would read SQLite.
    /// The SQL run by `body` (a child's save or push) and by `parent` applying it: a push into a
    /// private-queue parent is applied on the parent's queue after `body` returns.
    private func sqlOfPush(_ coordinator: StoreCoordinator, into parent: ObjectContext, _ body: () async throws -> Void) async throws -> [String] {
        try await coordinator.recordingSQL {
            try await body()
            try await parent.perform {}   // queued after the push, so it runs once the push is applied
        }.1
    }

    private func pushOntoFaults(_ dir: TemporaryDirectory, count: Int = 300)
        async throws -> (coordinator: StoreCoordinator, root: ObjectContext, child: ObjectContext, ids: [ObjectID], batch: ChangeBatch, rows: PushRows?) {
        var options = StoreOptions()
        options.rowCacheCapacity = 100
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file("store.sqlite"), options: options))
        let root = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await root.perform { () throws -> [ObjectID] in
            for i in 0..<count { root.insert(Note.self).title = "n\(i)" }
            try root.save()
            let ids = try root.fetchObjectIDs(FetchRequest<Note>())
            root.reset()
            return ids
        }
        let child = ObjectContext(.privateQueue, parent: root)
        let (batch, rows) = try await child.perform { () throws -> (ChangeBatch, PushRows?) in
            for note in try child.fetch(FetchRequest<Note>()) { note.title += " edited" }
            let batch = child.changeBatch()
            return (batch, PushRows.read(for: batch, below: root))
        }
        return (coordinator, root, child, ids, batch, rows)
    }

    /// A large push reads the rows of the parent's faults on the child's queue, before it
    /// enters the parent's: applying it there reads nothing.
    @Test func aLargePushFillsTheParentsFaultsFromRowsReadBeforeItsQueue() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, root, child, ids, batch, rows) = try await pushOntoFaults(dir)
        #expect(rows?.rows.count == ids.count)
        let sql = try await sqlOfPush(coordinator, into: root) { try await child.perform { try child.push(batch, to: root, rows: rows) } }
        #expect(sql.filter { $0.hasPrefix("SELECT") }.isEmpty, "\(sql)")
        try await root.perform {
            for id in ids {
                let note = try #require(root.object(with: id) as? Note)
                #expect(note.title.hasSuffix(" edited"))
                #expect(note.awakeFromFetchCount == 1)
                #expect(note.changedValues().keys.sorted() == ["title"])
            }
        }
    }

    /// Rows read before a commit are not taken: the parent reads the row as the commit left it.
    @Test func aPushDoesNotFillFaultsFromRowsReadBeforeACommit() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, root, child, ids, batch, rows) = try await pushOntoFaults(dir)
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        try await other.perform {
            let note = try #require(try other.existingObject(with: ids[0]) as? Note)
            note.rating = 7
            try other.save()
        }
        let sql = try await sqlOfPush(coordinator, into: root) { try await child.perform { try child.push(batch, to: root, rows: rows) } }
        #expect(!sql.filter { $0.hasPrefix("SELECT") && $0.contains("_id IN") }.isEmpty)
        try await root.perform {
            let note = try #require(root.object(with: ids[0]) as? Note)
            #expect(note.rating == 7)
            #expect(note.title.hasSuffix(" edited"))
        }
    }

    /// A parent whose staleness interval is 0 reads its faults itself.
    @Test func aPushOntoAParentThatNeverTakesCachedRowsReadsThere() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, root, child, ids, batch, rows) = try await pushOntoFaults(dir)
        root.stalenessInterval = 0
        let sql = try await sqlOfPush(coordinator, into: root) { try await child.perform { try child.push(batch, to: root, rows: rows) } }
        #expect(!sql.filter { $0.hasPrefix("SELECT") && $0.contains("_id IN") }.isEmpty)
        let titles = try await root.perform { ids.map { (root.object(with: $0) as? Note)?.title ?? "" } }
        #expect(titles.allSatisfy { $0.hasSuffix(" edited") })
    }

    /// The rows a leaf's push brought to the middle context go on with the middle's own push
    /// while they are current (an editor's commit on its way from main to the writer), instead of
    /// being read again; after a commit, the middle's push reads them again.
    @Test(arguments: [false, true]) func aPushPassesOnTheRowsItsChildBrought(commitBetween: Bool) async throws {
        let dir = TemporaryDirectory()
        var options = StoreOptions()
        options.rowCacheCapacity = 100   // fewer rows than the push: the cache cannot answer
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file("store.sqlite"), options: options))
        let top = ObjectContext(.privateQueue, coordinator: coordinator)
        let ids = try await top.perform { () throws -> [ObjectID] in
            for i in 0..<300 { top.insert(Note.self).title = "n\(i)" }
            try top.save()
            let ids = try top.fetchObjectIDs(FetchRequest<Note>())
            top.reset()
            return ids
        }
        let middle = ObjectContext(.privateQueue, parent: top)
        let leaf = ObjectContext(.privateQueue, parent: middle)
        try await leaf.perform {
            for note in try leaf.fetch(FetchRequest<Note>()) { note.title += " edited" }
            try leaf.save()
        }
        try await middle.perform {}   // the leaf's push applied (rows kept) before any commit below
        if commitBetween {
            let other = ObjectContext(.privateQueue, coordinator: coordinator)
            try await other.perform {
                let note = try #require(try other.existingObject(with: ids[0]) as? Note)
                note.rating = 7
                try other.save()
            }
        }
        let sql = try await sqlOfPush(coordinator, into: top) { try await middle.perform { try middle.save() } }
        let reads = sql.filter { $0.hasPrefix("SELECT") && $0.contains("_id IN") }
        #expect(reads.isEmpty == !commitBetween, "\(reads.count) row reads")
        try await top.perform {
            for id in ids {
                let note = try #require(top.object(with: id) as? Note)
                #expect(note.title.hasSuffix(" edited"))
                #expect(note.rating == (commitBetween && id == ids[0] ? 7 : 0))
            }
        }
    }

    /// A reset drops the rows a child's push brought (they stood for changes that are gone),
    /// and rolling back does too.
    @Test(arguments: [false, true]) func resetAndRollbackDropTheRowsAChildsPushBrought(rollsBack: Bool) async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file("store.sqlite")))
        let top = ObjectContext(.privateQueue, coordinator: coordinator)
        try await top.perform {
            for i in 0..<150 { top.insert(Note.self).title = "n\(i)" }
            try top.save()
            top.reset()
        }
        let middle = ObjectContext(.privateQueue, parent: top)
        let leaf = ObjectContext(.privateQueue, parent: middle)
        try await leaf.perform {
            for note in try leaf.fetch(FetchRequest<Note>()) { note.title += " edited" }
            try leaf.save()
        }
        let kept = try await middle.perform { (middle.pushedRows?.rows.count ?? 0, middle.hasChanges) }
        #expect(kept.0 == 150 && kept.1)
        let left = try await middle.perform { () -> Int? in
            if rollsBack { middle.rollback() } else { middle.reset() }
            return middle.pushedRows?.rows.count
        }
        #expect(left == nil)
    }

    @Test func childSeesAncestorsUnsavedChanges() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeStore(dir)
        try await root.perform {
            for i in 0..<5 { root.insert(Note.self).title = "saved\(i)" }
            try root.save()
            let all = try root.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
            all[0].title = "edited in root"
            root.delete(all[1])
            root.insert(Note.self).title = "unsaved in root"
        }
        let middle = ObjectContext(.privateQueue, parent: root)
        let leaf = ObjectContext(.privateQueue, parent: middle)
        try await middle.perform { middle.insert(Note.self).title = "unsaved in middle"; try middle.save() }
        let titles = try await leaf.perform {
            try leaf.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")])).map(\.title)
        }
        #expect(titles == ["edited in root", "saved2", "saved3", "saved4", "unsaved in middle", "unsaved in root"])
        let filtered = try await leaf.perform {
            try leaf.count(for: FetchRequest<Note>(predicate: try ObjectPredicate("title BEGINSWITH 'unsaved'")))
        }
        #expect(filtered == 2)
    }

    @Test func childFetchHonoursBatchSizeByPaging() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, root) = try await makeStore(dir)
        try await root.perform {
            for i in 0..<50 { root.insert(Note.self).title = String(format: "n%02d", i) }
            try root.save()
            root.reset()
        }
        let child = ObjectContext(.privateQueue, parent: root)
        var request = FetchRequest<Note>(sortKeys: [SortKey("title")])
        request.fetchBatchSize = 10
        let paged = request
        let (titles, sql) = try await coordinator.recordingSQL {
            try await child.perform { () throws -> [String] in
                let notes = try child.fetch(paged)
                #expect(notes.count == 50)
                #expect(notes.allSatisfy { $0.isFault })
                return [notes[0].title, notes[9].title, notes[10].title]
            }
        }
        #expect(titles == ["n00", "n09", "n10"])
        let pageReads = sql.filter { $0.contains("WHERE t0._id IN") }
        #expect(pageReads.count == 2)    // two pages of ten, read through the parent
        let registeredInRoot = try await root.perform { root.registeredObjects.count }
        #expect(registeredInRoot == 0)   // the parent passed rows through without keeping objects
    }

    @Test func permanentIDsReachEveryContext() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeStore(dir)
        let child = ObjectContext(.privateQueue, parent: root)
        let grandchild = ObjectContext(.privateQueue, parent: child)
        let temporary = try await grandchild.perform {
            let note = grandchild.insert(Note.self)
            note.title = "deep"
            try grandchild.save()
            return note.objectID
        }
        try await child.perform { try child.save() }
        let permanent = try await root.perform { () throws -> ObjectID in
            try root.save()
            return try #require(root.registeredObjects.first).objectID
        }
        #expect(temporary.isTemporary)
        #expect(!permanent.isTemporary)
        // The remapping reaches children asynchronously on their queues; a perform after it sees it.
        let childID = try await child.perform { child.registeredObjects.first?.objectID }
        #expect(childID == permanent)
        let grandchildView = try await grandchild.perform { () -> (ObjectID?, String?) in
            let note = grandchild.registeredObjects.first as? Note
            return (note?.objectID, note?.title)
        }
        #expect(grandchildView.0 == permanent)
        #expect(grandchildView.1 == "deep")
    }

    @Test func obtainPermanentIDsBeforeSaving() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeStore(dir)
        let child = ObjectContext(.privateQueue, parent: root)
        let (early, later) = try await child.perform { () throws -> (ObjectID, ObjectID) in
            let note = child.insert(Note.self)
            note.title = "early"
            try child.obtainPermanentIDs(for: [note])
            let early = note.objectID
            try child.save()
            return (early, note.objectID)
        }
        #expect(!early.isTemporary)
        #expect(early == later)
        let saved = try await root.perform { () throws -> ObjectID? in
            try root.save()
            return try root.fetch(FetchRequest<Note>()).first?.objectID
        }
        #expect(saved == early)
    }

    @Test func childDeleteAndRelationshipEditsReachTheParent() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeStore(dir)
        let (folderID, noteIDs) = try await root.perform { () throws -> (ObjectID, [ObjectID]) in
            let folder = root.insert(Folder.self)
            let notes = (0..<3).map { _ in root.insert(Note.self) }
            for note in notes { note.folder = folder }
            try root.save()
            return (folder.objectID, notes.map(\.objectID))
        }
        let child = ObjectContext(.privateQueue, parent: root)
        try await child.perform {
            let notes = noteIDs.map { child.object(with: $0) as! Note }  // programmer error: IDs are notes
            child.delete(notes[0])
            notes[1].folder = nil
            try child.save()
        }
        try await root.perform {
            let folder = try #require(root.object(with: folderID) as? Folder)
            #expect(folder.notes.map(\.objectID) == [noteIDs[2]])
            #expect(root.object(with: noteIDs[0]).isDeleted)
            try root.save()
            #expect(try root.count(for: FetchRequest<Note>()) == 2)
        }
    }

    /// A child's save into a private-queue parent (main's into the writer, in the asyncSaving
    /// stack) hands the batch over without waiting for the parent's queue; until the parent
    /// has applied it, a sibling reads through the parent, never the store's older row.
    @Test func aSaveIntoAPrivateQueueParentDoesNotWaitAndSiblingsSeeIt() async throws {
        let dir = TemporaryDirectory()
        let (_, root) = try await makeStore(dir)
        let id = try await root.perform { () throws -> ObjectID in
            let note = root.insert(Note.self)
            note.title = "before"
            try root.save()
            return note.objectID
        }
        let child = ObjectContext(.privateQueue, parent: root), sibling = ObjectContext(.privateQueue, parent: root)
        try await child.perform { _ = try child.existingObject(with: id) }   // loaded, so the child's edit is an update
        // The parent's queue is held until `gate` opens.
        let entered = DispatchSemaphore(value: 0), gate = DispatchSemaphore(value: 0)
        root.queue.async { entered.signal(); gate.wait() }
        entered.wait()
        let saved = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? child.performAndWait {
                (try child.existingObject(with: id) as? Note)?.title = "after"
                try child.save()
            }
            saved.signal()
        }
        let returned = saved.wait(timeout: .now() + 10) == .success
        #expect(returned, "the child's save waited for the parent's queue")
        let read = Locked<String?>(nil), readDone = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            sibling.performAndWait { read.withLock { $0 = (sibling.object(with: id) as? Note)?.title } }
            readDone.signal()
        }
        // The sibling's read must not have answered from the store while the push waits.
        let answeredEarly = readDone.wait(timeout: .now() + 0.3) == .success
        #expect(!answeredEarly, "the sibling read \(read.withLock { $0 } ?? "nil") past the parent")
        gate.signal()
        if !returned { saved.wait() }
        if !answeredEarly { readDone.wait() }
        #expect(read.withLock { $0 } == "after")
        try await root.perform { () throws -> Void in
            #expect(root.hasChanges)
            let note = try root.existingObject(with: id) as? Note
            #expect(note?.title == "after")
        }
    }
}

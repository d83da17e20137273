import Foundation
import Testing
@testable import Strata

/// Where a merge's saved rows (`ChangeSet.savedInserts`) must not be used, or must be used
/// as a read of the store would be: change sets merged out of commit order, a merge inside an
/// observer, a refresh, fault batches whose hooks touch each other, transformers that
/// normalise.
@Suite struct MergedRowsOrderTests {
    /// A note inserted ("first", change set A) and renamed ("second", B) on one coordinator;
    /// a second coordinator on the file and a context on it.
    private static func insertAndRename(_ dir: TemporaryDirectory) async throws -> (id: ObjectID, a: ChangeSet, b: ChangeSet, main: ObjectContext, ui: StoreCoordinator) {
        let (_, importer) = try await makeStore(dir)
        let received = Received<ChangeSet>()
        let token = importer.observeChanges { received.append($0) }
        let id = try await importer.perform { () throws -> ObjectID in
            let note = importer.insert(Note.self)
            note.title = "first"
            try importer.save()
            note.title = "second"
            try importer.save()
            return note.objectID
        }
        token.cancel()
        let sets = received.all
        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        return (id, sets[0], sets[1], ObjectContext(.privateQueue, coordinator: ui), ui)
    }

    /// A folder saved on one coordinator and held, with its (empty) notes, by a context on a
    /// second one (`.mergeByPropertyObjectTrump`); then a note inserted into it on the first,
    /// and that save's change set.
    private static func noteInHeldFolder(_ dir: TemporaryDirectory) async throws
        -> (folder: ObjectID, note: ObjectID, inserted: ChangeSet, main: ObjectContext) {
        let (_, importer) = try await makeStore(dir)
        let folderID = try await importer.perform { () throws -> ObjectID in
            let folder = importer.insert(Folder.self)
            try importer.save()
            return folder.objectID
        }
        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui, mergePolicy: .mergeByPropertyObjectTrump)
        try await main.perform { _ = try #require(try main.existingObject(with: folderID) as? Folder).notes.count }
        let received = Received<ChangeSet>()
        let token = importer.observeChanges { received.append($0) }
        let noteID = try await importer.perform { () throws -> ObjectID in
            let note = importer.insert(Note.self)
            note.folder = try #require(try importer.existingObject(with: folderID) as? Folder)
            try importer.save()
            return note.objectID
        }
        token.cancel()
        return (folderID, noteID, try #require(received.all.first), main)
    }

    /// A note titled "saved", inserted and saved on a coordinator of a fresh file; the
    /// coordinator, the note's ID and the save's change set.
    private static func savedNote(_ dir: TemporaryDirectory) async throws -> (writer: StoreCoordinator, id: ObjectID, changes: ChangeSet) {
        let (writer, importer) = try await makeStore(dir)
        let received = Received<ChangeSet>()
        let token = importer.observeChanges { received.append($0) }
        let id = try await importer.perform { () throws -> ObjectID in
            let note = importer.insert(Note.self)
            note.title = "saved"
            try importer.save()
            return note.objectID
        }
        token.cancel()
        return (writer, id, try #require(received.all.first))
    }

    @Test func aChangeSetMergedAfterALaterOneIsReadFromTheStore() async throws {
        let dir = TemporaryDirectory()
        let (id, a, b, main, _) = try await Self.insertAndRename(dir)
        #expect(a.savedSnapshot(of: id) != nil)
        let seen = Received<String>()
        try await main.perform { main.merge(b) }   // the rename first: the note is not held, so it passes
        let token = main.observeChanges { _ in seen.append((main.object(with: id) as? Note)?.title ?? "") }
        try await main.perform { main.merge(a) }
        token.cancel()
        #expect(seen.all == ["second"])
    }

    @Test func aChangeSetWithoutCommitNumbersCountsAsEveryCommitSoFar() async throws {
        let dir = TemporaryDirectory()
        let (id, a, b, main, _) = try await Self.insertAndRename(dir)
        let unnumbered = ChangeSet(updated: b.updated, versions: b.versions)   // as sync or an app builds one
        let seen = Received<String>()
        try await main.perform { main.merge(unnumbered) }
        let token = main.observeChanges { _ in seen.append((main.object(with: id) as? Note)?.title ?? "") }
        try await main.perform { main.merge(a) }
        token.cancel()
        #expect(seen.all == ["second"])
    }

    @Test func aContextsOwnSaveIsACommitItWasToldOf() async throws {
        let dir = TemporaryDirectory()
        let (folderID, noteID, inserted, main) = try await Self.noteInHeldFolder(dir)

        // Main deletes the folder and saves: the store clears the new note's reference (main
        // does not hold the note). The older change set that inserted the note comes after.
        try await main.perform {
            main.delete(try main.existingObject(with: folderID))
            try main.save()
        }
        let seen = Received<String>()
        let observer = main.observeChanges { _ in
            seen.append("\(main.object(with: noteID).primitiveValue(forKey: "folder"))")
        }
        try await main.perform { main.merge(inserted) }
        observer.cancel()
        #expect(seen.all == ["\(PropertyValue.null)"])
    }

    @Test func aCommitMergedBetweenTwoPiecesEndsTheRowsOfTheRest() async throws {
        let dir = TemporaryDirectory()
        let (writer, importer) = try await makeStore(dir)
        let received = Received<ChangeSet>()
        let token = importer.observeChanges { received.append($0) }
        try await importer.perform {
            for i in 0..<4 { importer.insert(Note.self).title = "original \(i)" }
            try importer.save()
        }
        // Another context renames the notes and saves: a numbered change set main merges
        // between the pieces (the notes are not held there, so it passes over them).
        let renamer = ObjectContext(.privateQueue, coordinator: writer)
        let renames = Received<ChangeSet>()
        let renameToken = renamer.observeChanges { renames.append($0) }
        try await renamer.perform {
            for note in try renamer.fetch(FetchRequest<Note>()) { note.title = "renamed" }
            try renamer.save()
        }
        renameToken.cancel()
        let rename = try #require(renames.all.first)
        try await importer.perform {
            for i in 0..<4 { importer.insert(Note.self).title = "later \(i)" }
            try importer.save()
        }
        token.cancel()
        let sets = received.all
        let combined = sets[0].merging(sets[1])
        let pieces = combined.pieces(of: 3)
        #expect(pieces.count == 3)
        let first = Set(sets[0].inserted)

        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui)
        let seen = Received<String>()
        let observer = main.observeChanges { changes in
            for id in changes.inserted where first.contains(id) { seen.append((main.object(with: id) as? Note)?.title ?? "") }
        }
        try await main.perform { main.merge(pieces[0]) }
        let beforeRename = seen.all.count
        try await main.perform {
            main.merge(rename)   // the notes of the first save not held yet: passed over
            for piece in pieces.dropFirst() { main.merge(piece) }
        }
        observer.cancel()
        let after = seen.all.dropFirst(beforeRename)
        #expect(!after.isEmpty)
        #expect(Array(after) == Array(repeating: "renamed", count: after.count))
    }

    @Test func aBatchUpdateAfterTheSaveEndsItsRows() async throws {
        let dir = TemporaryDirectory()
        let (writer, id, changes) = try await Self.savedNote(dir)
        // Its change set goes back to the caller only: main never hears of it.
        _ = try writer.execute(BatchUpdateRequest(entityName: "Note", propertiesToUpdate: ["title": .string("batch")]))
        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui)
        let seen = Received<String>()
        let observer = main.observeChanges { _ in seen.append((main.object(with: id) as? Note)?.title ?? "") }
        try await main.perform { main.merge(changes) }
        observer.cancel()
        #expect(seen.all == ["batch"])
    }

    @Test func aSaveInsideAMergeObserverEndsTheMergesRows() async throws {
        let dir = TemporaryDirectory()
        let (folderID, noteID, inserted, main) = try await Self.noteInHeldFolder(dir)
        let seen = Received<String>()
        let observer = main.observeChanges { changes in
            guard !changes.inserted.isEmpty else { return }
            // The folder goes, inside the merge: the store clears the new note's reference.
            if let folder = try? main.existingObject(with: folderID) { main.delete(folder) }
            try? main.save()
            seen.append("\(main.object(with: noteID).primitiveValue(forKey: "folder"))")
        }
        try await main.perform { main.merge(inserted) }
        observer.cancel()
        #expect(seen.all == ["\(PropertyValue.null)"])
    }

    @Test func aMergeInsideAnObserverEndsTheOuterMergesRows() async throws {
        let dir = TemporaryDirectory()
        let (id, a, b, main, _) = try await Self.insertAndRename(dir)
        let seen = Received<String>()
        let nested = Received<Bool>()
        let token = main.observeChanges { changes in
            guard changes == a else { return }
            nested.append(true)
            main.merge(b)   // passes over the rename (the note is not held)
            seen.append((main.object(with: id) as? Note)?.title ?? "")
        }
        try await main.perform { main.merge(a) }
        token.cancel()
        #expect(nested.all.count == 1)
        #expect(seen.all == ["second"])
    }

    @Test func aRefreshedObjectReadsTheStoreDuringTheMerge() async throws {
        let dir = TemporaryDirectory()
        let (writer, id, changes) = try await Self.savedNote(dir)
        try await writer.database.write { db in try db.execute(sql: "UPDATE Note SET title = 'changed behind'") }
        let ui = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui)
        let seen = Received<String>()
        let observer = main.observeChanges { _ in
            let note = main.object(with: id)
            seen.append((note as? Note)?.title ?? "")   // from the merge's row
            main.refresh(note, mergeChanges: false)
            seen.append((note as? Note)?.title ?? "")   // a refreshed fault reads the store
        }
        try await main.perform { main.merge(changes) }
        observer.cancel()
        #expect(seen.all == ["saved", "changed behind"])
    }

    @Test func eachFaultOfABatchWakesOnceAfterTheBatchIsFilled() async throws {
        let model = try ObjectModel(WakeNode.self)
        let dir = TemporaryDirectory()
        let writer = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let importer = ObjectContext(.privateQueue, coordinator: writer)
        let parentID = try await importer.perform { () throws -> ObjectID in
            let parent = importer.insert(WakeNode.self)
            parent.name = "parent \(UUID())"
            try importer.save()
            return parent.objectID
        }
        let received = Received<ChangeSet>()
        let token = importer.observeChanges { received.append($0) }
        let (childID, parentName) = try await importer.perform { () throws -> (ObjectID, String) in
            let parent = try #require(try importer.existingObject(with: parentID) as? WakeNode)
            let child = importer.insert(WakeNode.self)
            child.name = "child \(UUID())"
            child.parent = parent
            try importer.save()
            return (child.objectID, parent.name)
        }
        token.cancel()
        let changes = try #require(received.all.first)
        // The child's row changes behind the merge: its wake under the saved name shows it was
        // filled from the merge, the parent's under its stored one that it was read.
        let table = try #require(model.entity(named: "WakeNode")).tableName
        try await writer.database.write { db in try db.execute(sql: "UPDATE \(table) SET name = 'behind' WHERE _id = \(childID.primaryKey ?? 0)") }

        let ui = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui)
        let names = Received<String>()
        let observer = main.observeChanges { _ in
            let objects = main.objects(with: [childID, parentID])   // one fault batch
            names.append((objects[0] as? WakeNode)?.name ?? "")       // fires it: the child from the merge's row, the parent from the store
        }
        try await main.perform { main.merge(changes) }
        observer.cancel()
        let childName = try #require(names.all.first)
        #expect(childName != "behind")
        #expect(WakeNode.wakes.all.filter { $0 == childName }.count == 1)
        #expect(WakeNode.wakes.all.filter { $0 == parentName }.count == 1)
    }

    @Test func aTransformableValueIsDecodedAgainAsAReadWouldDecodeIt() async throws {
        TransformerRegistry.shared.register(Shouting(), as: .shouting)
        let model = try ObjectModel(ShoutedDoc.self)
        let dir = TemporaryDirectory()
        let writer = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let importer = ObjectContext(.privateQueue, coordinator: writer)
        let received = Received<ChangeSet>()
        let token = importer.observeChanges { received.append($0) }
        let id = try await importer.perform { () throws -> ObjectID in
            let doc = importer.insert(ShoutedDoc.self)
            doc.body = "hello"   // the saving context keeps the value it was given
            try importer.save()
            return doc.objectID
        }
        token.cancel()
        // The stored bytes change behind the merge: a read would give "BYE".
        try await writer.database.write { db in try db.execute(sql: "UPDATE ShoutedDoc SET body = X'627965'") }
        let ui = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let main = ObjectContext(.privateQueue, coordinator: ui)
        let seen = Received<String>()
        let observer = main.observeChanges { _ in seen.append((main.object(with: id) as? ShoutedDoc)?.body ?? "") }
        try await main.perform { main.merge(try #require(received.all.first)) }
        observer.cancel()
        #expect(seen.all == ["HELLO"])   // what a read of the stored bytes gives
    }
}

extension TransformerName {
    /// ``Shouting``, registered by the test that uses it.
    static let shouting = TransformerName(rawValue: "test-shouting")
}

/// A document whose body goes through ``Shouting``.
final class ShoutedDoc: ManagedObject {
    @Attribute("body", transformer: .shouting) var body = ""
}

/// A transformer whose decoding upper-cases: a read gives back more than was written.
private struct Shouting: DataTransformer {
    func encode(_ value: Any) throws -> Data {
        guard let text = value as? String else { throw TransformerError.wrongType(expected: "String", got: "\(type(of: value))") }
        return Data(text.utf8)
    }
    func decode(_ data: Data) throws -> any Sendable { String(decoding: data, as: UTF8.self).uppercased() }
}

/// A tree node whose `awakeFromFetch` reads its parent (another object of the same fault batch).
final class WakeNode: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("parent", inverse: "children") var parent: WakeNode?
    @Relationship("children", inverse: "parent") var children: Set<WakeNode>
    /// The names of the nodes woken, in order.
    static let wakes = Received<String>()

    override func awakeFromFetch() {
        Self.wakes.append(name)
        _ = parent?.name
    }
}

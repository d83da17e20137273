import Foundation
import GRDB
import Testing
@testable import Strata

/// The store's change history: written in the save's transaction, by every coordinator on the
/// file once turned on, for saves and batch requests alike.
@Suite struct HistoryTests {
    private func openRecording(_ dir: TemporaryDirectory, records: Bool = true) async throws -> StoreCoordinator {
        var options = StoreOptions()
        options.recordsHistory = records
        return try await StoreCoordinator(model: testModel, store: .sqlite(dir.file(), options: options))
    }

    @Test func historyIsOffUnlessAsked() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await openRecording(dir, records: false)
        #expect(throws: StrataError.self) { try coordinator.history(after: nil) }
        do { _ = try coordinator.currentHistoryToken() } catch { #expect(error.code == .invalidRequest) }
    }

    @Test func savesAreRecordedWithKeysMembersAndTombstones() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await openRecording(dir)
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "editor")
        context.transactionAuthor = "tester"
        let (noteID, folderID, tagID) = try await context.perform { () throws -> (ObjectID, ObjectID, ObjectID) in
            let folder = context.insert(Folder.self)
            let tag = context.insert(Tag.self)
            let note = context.insert(Note.self)
            note.uniqueIdentifier = "n-1"
            note.folder = folder
            note.tags = [tag]
            try context.save()
            note.title = "renamed"
            note.tags = []
            try context.save()
            context.delete(note)
            try context.save()
            return (note.objectID, folder.objectID, tag.objectID)
        }
        let history = try coordinator.history(after: nil)
        #expect(history.count == 3)
        #expect(history.map(\.token) == history.map(\.token).sorted() && Set(history.map(\.token)).count == 3)
        #expect(history.allSatisfy { $0.kind == .save && $0.author == "tester" && $0.contextName == "editor" })

        let inserts = history[0].changes
        #expect(Set(inserts.map(\.objectID)) == [noteID, folderID, tagID] && inserts.allSatisfy { $0.operation == .insert })
        #expect(inserts.first { $0.objectID == noteID }?.addedMembers["tags"] == [tagID])
        #expect(inserts.first { $0.objectID == tagID }?.addedMembers["notes"] == [noteID])

        let noteUpdate = try #require(history[1].changes.first { $0.objectID == noteID })
        #expect(noteUpdate.operation == .update && noteUpdate.updatedKeys == ["title", "tags"])
        #expect(noteUpdate.removedMembers["tags"] == [tagID] && noteUpdate.addedMembers.isEmpty)

        let delete = try #require(history[2].changes.first { $0.objectID == noteID })
        #expect(delete.operation == .delete && delete.tombstone == ["uniqueIdentifier": .string("n-1")])
        #expect(try coordinator.history(after: history[1].token).map(\.token) == [history[2].token])
        #expect(try coordinator.currentHistoryToken() == history[2].token)
    }

    @Test func aFailedSaveLeavesNoRecord() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await openRecording(dir)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let note = context.insert(Note.self)
            note.uniqueIdentifier = "same"
            try context.save()
            let twin = context.insert(Note.self)
            twin.uniqueIdentifier = "same"
            #expect(throws: StrataError.self) { try context.save() }   // unique collision: nothing written
        }
        #expect(try coordinator.history(after: nil).count == 1)
    }

    @Test func everyCoordinatorOnTheFileRecordsOnceTurnedOn() async throws {
        let dir = TemporaryDirectory()
        let recording = try await openRecording(dir)
        let other = try await openRecording(dir, records: false)        // the file's setting wins
        let writer = ObjectContext(.privateQueue, coordinator: other)
        try await writer.perform { _ = writer.insert(Tag.self); try writer.save() }
        #expect(try recording.history(after: nil).first?.changes.count == 1)
        try other.close()
        try recording.close()
        let reopened = try await openRecording(dir, records: false)
        #expect(try reopened.history(after: nil).count == 1)
    }

    @Test func batchRequestsAreRecorded() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await openRecording(dir)
        let ids = try coordinator.execute(BatchInsertRequest(entityName: "Tag", objects: [["label": .string("a")], ["label": .string("b")]]))
        _ = try coordinator.execute(BatchUpdateRequest(entityName: "Tag", predicate: nil, propertiesToUpdate: ["label": .string("c")]))
        _ = try coordinator.execute(BatchDeleteRequest(entityName: "Tag", predicate: nil))
        let history = try coordinator.history(after: nil)
        #expect(history.map(\.kind) == [.batchInsert, .batchUpdate, .batchDelete])
        #expect(history.allSatisfy { Set($0.changes.map(\.objectID)) == Set(ids) })
        #expect(history[1].changes.allSatisfy { $0.operation == .update && $0.updatedKeys == ["label"] })
        #expect(history[2].changes.allSatisfy { $0.operation == .delete })
    }

    @Test func deletingHistoryKeepsLaterTransactionsAndTheirRows() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await openRecording(dir)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            for _ in 0..<3 {
                let note = context.insert(Note.self)
                note.tags = [context.insert(Tag.self)]
                try context.save()
            }
        }
        let all = try coordinator.history(after: nil)
        try coordinator.deleteHistory(through: all[1].token)
        let kept = try coordinator.history(after: nil)
        #expect(kept.map(\.token) == [all[2].token] && kept[0].changes.count == all[2].changes.count)
        try coordinator.close()
        // The pruned transactions' members went with them (foreign keys cascade).
        let db = try DatabaseQueue(path: dir.file().path)
        let (transactions, members) = try await db.read { db in
            (try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _strata_history") ?? -1,
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _strata_history_members") ?? -1)
        }
        #expect(transactions == 1 && members == 2)
    }

    @Test func payloadRoundTripsAndRefusesDamage() throws {
        var payload = HistoryPayload()
        let entries = [HistoryPayload.Entry(entity: "Note", key: 1, operation: .insert, keys: []),
                       HistoryPayload.Entry(entity: "Note", key: Int64.max, operation: .update, keys: ["title", "folder"]),
                       HistoryPayload.Entry(entity: "Tag", key: -5, operation: .delete, keys: [])]
        for entry in entries { _ = payload.append(entity: entry.entity, key: entry.key, entry.operation, keys: entry.keys) }
        let bytes = payload.bytes
        #expect(HistoryPayload.entries(of: bytes) == entries)
        for cut in 0..<bytes.count { #expect(HistoryPayload.entries(of: Array(bytes[..<cut])) == nil) }
        #expect(HistoryPayload.entries(of: [2] + bytes.dropFirst()) == nil)      // a later format
        #expect(HistoryPayload.entries(of: bytes + [0]) == nil)                  // trailing bytes
    }

    @Test func aDamagedRecordIsATypedError() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await openRecording(dir)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform { _ = context.insert(Tag.self); try context.save() }
        try coordinator.close()
        let db = try DatabaseQueue(path: dir.file().path)
        try await db.write { db in try db.execute(sql: "UPDATE _strata_history SET changes = x'01ff'") }
        try db.close()
        let reopened = try await openRecording(dir)
        do { _ = try reopened.history(after: nil); Issue.record("read a damaged record") } catch { #expect(error.code == .corruptStore) }
    }

    @Test func anUnknownTransactionKindIsATypedError() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await openRecording(dir)
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform { _ = context.insert(Tag.self); try context.save() }
        try coordinator.close()
        let db = try DatabaseQueue(path: dir.file().path)
        try await db.write { db in try db.execute(sql: "UPDATE _strata_history SET kind = 'teleport'") }
        try db.close()
        let reopened = try await openRecording(dir)
        do { _ = try reopened.history(after: nil); Issue.record("read an unknown kind") } catch { #expect(error.code == .corruptStore) }
    }
}

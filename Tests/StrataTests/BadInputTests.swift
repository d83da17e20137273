import Foundation
import GRDB
import Testing
@testable import Strata

/// Every bad input gives its typed error, and nothing is lost.
@Suite struct BadInputTests {
    func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    @Test func fileThatIsNotSQLiteIsNotAStoreAndUntouched() async throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let original = Data("hello, this is a text file, not a database".utf8)
        try original.write(to: url)
        do { _ = try await StoreCoordinator(model: testModel, store: .sqlite(url)); Issue.record("opened") }
        catch { #expect(error.code == .notAStore) }
        #expect(try bytes(url) == original)
    }

    @Test func foreignSQLiteDatabaseIsNotAStoreAndUntouched() async throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        let queue = try DatabaseQueue(path: url.path)
        try await queue.write { try $0.execute(sql: "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers (name) VALUES ('Ada')") }
        try queue.close()
        let before = try bytes(url)
        do { _ = try await StoreCoordinator(model: testModel, store: .sqlite(url)); Issue.record("opened") }
        catch { #expect(error.code == .notAStore) }
        #expect(try bytes(url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
    }

    @Test func corruptStoreIsATypedErrorAndUntouched() async throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        do {
            let (coordinator, context) = try await makeStore(dir)
            try await context.perform { context.insert(Note.self).title = "keep"; try context.save() }
            try coordinator.close()
        }
        var data = try bytes(url)
        // Keep the header magic, wreck the rest of page 1 (the schema).
        for i in 100..<min(data.count, 4096) { data[i] = 0xA5 }
        try data.write(to: url)
        do { _ = try await StoreCoordinator(model: testModel, store: .sqlite(url)); Issue.record("opened") }
        catch { #expect(error.code == .corruptStore) }
        #expect(try bytes(url) == data)
    }

    @Test func modelMismatchIsATypedErrorAndDataSurvives() async throws {
        let dir = TemporaryDirectory()
        let url = dir.file()
        do {
            let (coordinator, context) = try await makeStore(dir)
            try await context.perform { context.insert(Note.self).title = "keep"; try context.save() }
            try coordinator.close()
        }
        let other = try ObjectModel(entities: [EntityDescription("Other", attributes: [AttributeDescription("x", type: .string)])])
        do { _ = try await StoreCoordinator(model: other, store: .sqlite(url)); Issue.record("opened") }
        catch { #expect(error.code == .modelMismatch) }
        let (_, context) = try await makeStore(dir)
        let titles = try await context.perform { try context.fetch(FetchRequest<Note>()).map(\.title) }
        #expect(titles == ["keep"])
    }

    @Test func undecodableTransformableIsATypedErrorAndBytesSurvive() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform { context.insert(Note.self).metadata = ["a": "b"]; try context.save() }
        try await coordinator.database.write { try $0.execute(sql: "UPDATE Note SET metadata = X'DEADBEEF'") }
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        try await fresh.perform {
            do { _ = try fresh.fetch(FetchRequest<Note>()); Issue.record("decoded garbage") }
            catch let error as StrataError {
                #expect(error.code == .undecodableValue)
                #expect(error.key == "metadata")
                #expect(error.entity == "Note")
            }
            // Other work on the object does not overwrite the stored bytes.
            var faulting = FetchRequest<Note>()
            faulting.returnsObjectsAsFaults = true
            let note = try #require(try fresh.fetch(faulting).first)
            note.title = "edited"
            try fresh.save()
        }
        let stored = try await coordinator.database.read { try Data.fetchOne($0, sql: "SELECT metadata FROM Note") }
        #expect(stored == Data([0xDE, 0xAD, 0xBE, 0xEF]))
    }

    @Test func validationFailureAbortsTheWholeSave() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            context.insert(Note.self).title = "fine"
            context.insert(Note.self).title = "invalid"     // Note.validateForInsert refuses it
            do { try context.save(); Issue.record("saved") }
            catch let error as StrataError { #expect(error.code == .validation); #expect(error.entity == "Note"); #expect(error.objectID != nil) }
            var storeOnly = FetchRequest<Note>()
            storeOnly.includesPendingChanges = false
            #expect(try context.count(for: storeOnly) == 0)
        }
    }

    @Test func requiredValueMissingNamesObjectAndKey() async throws {
        let model = try ObjectModel(entities: [EntityDescription("Item", attributes: [AttributeDescription("name", type: .string, isOptional: false)])])
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let item = try context.insert(entityNamed: "Item")
            do { try context.save(); Issue.record("saved") }
            catch let error as StrataError { #expect(error.code == .validation); #expect(error.key == "name"); #expect(error.objectID == item.objectID) }
        }
    }

    @Test func staleUpdateIsAConflictAndNothingIsWritten() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, first) = try await makeStore(dir)
        let id = try await first.perform { let n = first.insert(Note.self); n.title = "original"; try first.save(); return n.objectID }
        let second = ObjectContext(.privateQueue, coordinator: coordinator)
        try await second.perform { (second.object(with: id) as? Note)?.title = "theirs"; try second.save() }
        try await first.perform {
            let note = try #require(first.object(with: id) as? Note)
            note.title = "ours"
            do { try first.save(); Issue.record("overwrote") } catch let error as StrataError {
                #expect(error.code == .conflict)
                let conflict = try #require(error.conflicts.first { $0.key == "title" })
                #expect(conflict.originalValue == .string("original"))
                #expect(conflict.ourValue == .string("ours"))
                #expect(conflict.storedValue == .string("theirs"))
            }
        }
        let stored = try await coordinator.database.read { try String.fetchOne($0, sql: "SELECT title FROM Note") }
        #expect(stored == "theirs")
    }

    @Test func uniqueCollisionIsAConflict() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            context.insert(Note.self).uniqueIdentifier = "same"
            try context.save()
            context.insert(Note.self).uniqueIdentifier = "same"
            do { try context.save(); Issue.record("duplicated") }
            catch let error as StrataError { #expect(error.code == .conflict); #expect(error.key == "uniqueIdentifier") }
        }
    }
}

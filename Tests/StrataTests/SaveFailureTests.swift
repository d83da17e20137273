import Foundation
import GRDB
import Testing
@testable import Strata

/// A save that fails leaves the context exactly as it was — the same inserted, updated and
/// deleted objects with the same values — and saving again after fixing the cause works.
@Suite struct SaveFailureTests {
    /// What a context has not saved yet: the objects in each set and their changed values.
    struct Pending: Equatable {
        var inserted: Set<ObjectIdentifier>
        var updated: Set<ObjectIdentifier>
        var deleted: Set<ObjectIdentifier>
        var values: [ObjectIdentifier: [String: PropertyValue]]

        init(_ context: ObjectContext) {
            inserted = Set(context.insertedObjects.map(ObjectIdentifier.init))
            updated = Set(context.updatedObjects.map(ObjectIdentifier.init))
            deleted = Set(context.deletedObjects.map(ObjectIdentifier.init))
            var values: [ObjectIdentifier: [String: PropertyValue]] = [:]
            for object in context.insertedObjects.union(context.updatedObjects) { values[ObjectIdentifier(object)] = object.changedValues() }
            self.values = values
        }
    }

    /// Saves, expecting `code`; checks that nothing pending changed and nothing was written.
    func expectFailure(_ context: ObjectContext, _ code: StrataError.Code, key: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        let before = Pending(context)
        #expect(!before.inserted.isEmpty || !before.updated.isEmpty || !before.deleted.isEmpty, sourceLocation: sourceLocation)
        do {
            try context.save()
            Issue.record("saved", sourceLocation: sourceLocation)
        } catch {
            #expect(error.code == code, sourceLocation: sourceLocation)
            if let key { #expect(error.key == key, sourceLocation: sourceLocation) }
        }
        #expect(Pending(context) == before, sourceLocation: sourceLocation)
        #expect(context.hasChanges, sourceLocation: sourceLocation)
    }

    /// Titles of the notes in the store at `url`, read by a new coordinator.
    func storedTitles(_ dir: TemporaryDirectory) async throws -> [String] {
        let (coordinator, context) = try await makeStore(dir)
        let titles = try await context.perform { try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")])).map(\.title) }
        try coordinator.close()
        return titles
    }

    /// Two saved notes "a" and "b", unique identifiers "a" and "b".
    func seed(_ context: ObjectContext) async throws {
        try await context.perform {
            for title in ["a", "b"] {
                let note = context.insert(Note.self)
                note.title = title
                note.uniqueIdentifier = title
            }
            try context.save()
        }
    }

    @Test func uniqueCollisionKeepsChangesAndRetrySucceeds() async throws {
        let dir = TemporaryDirectory()
        do {
            let (coordinator, context) = try await makeStore(dir)
            try await seed(context)
            try await context.perform {
                let notes = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
                notes[0].title = "a2"                     // an update
                context.delete(notes[1])                  // a delete
                let fresh = context.insert(Note.self)     // an insert that collides with "a"
                fresh.title = "c"
                fresh.uniqueIdentifier = "a"
                expectFailure(context, .conflict, key: "uniqueIdentifier")
                #expect(fresh.uniqueIdentifier == "a" && fresh.title == "c" && notes[0].title == "a2" && notes[1].isDeleted)
                fresh.uniqueIdentifier = "c"
                try context.save()
                #expect(!context.hasChanges)
            }
            try coordinator.close()
        }
        #expect(try await storedTitles(dir) == ["a2", "c"])
    }

    @Test func denyRuleKeepsChangesAndRetrySucceeds() async throws {
        let dir = TemporaryDirectory()
        do {
            let (coordinator, context) = try await makeStore(dir)
            try await context.perform {
                let person = context.insert(Person.self)
                person.name = "owner"
                let folder = context.insert(Folder.self)
                folder.name = "kept"
                folder.owner = person
                try context.save()
                folder.name = "renamed"
                context.delete(person)
                expectFailure(context, .deleteDenied, key: "folders")
                #expect(person.isDeleted && folder.owner === person && folder.name == "renamed")
                folder.owner = nil
                try context.save()
            }
            try coordinator.close()
        }
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform {
            #expect(try context.count(for: FetchRequest<Person>()) == 0)
            let folder = try #require(try context.fetch(FetchRequest<Folder>()).first)
            #expect(folder.name == "renamed" && folder.owner == nil)
        }
        try coordinator.close()
    }

    @Test func conflictUnderErrorPolicyKeepsChangesAndRetrySucceeds() async throws {
        let dir = TemporaryDirectory()
        do {
            let (coordinator, context) = try await makeStore(dir)
            try await seed(context)
            let other = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                let notes = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
                notes[0].title = "ours"
                context.insert(Note.self).title = "new"
            }
            try await other.perform {
                let notes = try other.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")]))
                notes[0].rating = 5
                try other.save()
            }
            try await context.perform {
                expectFailure(context, .conflict)
                let note = try #require(context.updatedObjects.first as? Note)
                context.refresh(note, mergeChanges: true)   // take the store's row, keep our edit
                #expect(note.title == "ours" && note.rating == 5)
                try context.save()
            }
            try coordinator.close()
        }
        #expect(try await storedTitles(dir) == ["b", "new", "ours"])
    }

    /// SQLite's `max_page_count` on the writer connection stands in for a full disk.
    @Test func fullDiskIsStoreFullAndRetrySucceeds() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        let pages = try await coordinator.database.writeWithoutTransaction { db -> Int in
            let count = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(count)")
            return count
        }
        #expect(pages > 0)
        try await context.perform {
            let sample = context.insert(Sample.self)
            sample.name = "big"
            sample.blob = Data(repeating: 7, count: 256 << 10)
            expectFailure(context, .storeFull)
            #expect(sample.blob.count == 256 << 10)
        }
        try await coordinator.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = 1073741823") }
        try await context.perform { try context.save() }
        try coordinator.close()
        let (reopened, fresh) = try await openSamples(dir.file())
        try await fresh.perform {
            let sample = try #require(try fresh.fetch(FetchRequest<Sample>()).first)
            #expect(sample.name == "big" && sample.blob == Data(repeating: 7, count: 256 << 10))
        }
        try reopened.close()
    }

    /// A value the transformer cannot encode (JSON has no NaN) fails the save, even when it
    /// is the object's only change; the context keeps the object as updated.
    @Test func unencodableValueFailsTheSaveAndRetrySucceeds() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let sample = context.insert(Sample.self)
            sample.name = "n"
            sample.numbers = [1]
            try context.save()
            sample.numbers = [.nan]
            #expect(context.updatedObjects.contains(sample))
            expectFailure(context, .unencodableValue, key: "numbers")
            #expect(sample.numbers == [1])               // the value that could not be encoded is not taken
            sample.numbers = [2]
            try context.save()
        }
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        let numbers = try await fresh.perform { try fresh.fetch(FetchRequest<Sample>()).first?.numbers }
        #expect(numbers == [2])
        try coordinator.close()
    }

    /// Decimals hold at most 38 significant digits and no NaN; dates no NaN. Such values are
    /// `.unencodableValue` at save rather than stored rounded or as nil.
    @Test func unstorableDecimalsAndDatesFailTheSave() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let sample = context.insert(Sample.self)
            sample.name = "d"
            sample.amount = .nan
            expectFailure(context, .unencodableValue, key: "amount")
            var big = Decimal(string: "99999999999999999999999999999999999999")!   // 38 nines: fine
            sample.amount = big
            try context.save()
            big = big * 3 + 2                                                       // 39 digits in the mantissa
            #expect(big.description.count == 39)
            sample.amount = big
            expectFailure(context, .unencodableValue, key: "amount")
            sample.amount = 1
            sample.moment = Date(timeIntervalSince1970: .nan)
            expectFailure(context, .unencodableValue, key: "moment")
            sample.moment = Date(timeIntervalSince1970: 1)
            try context.save()
        }
        try coordinator.close()
    }

    /// An integer out of its attribute's range, set by key, is `.unencodableValue` at save
    /// (stored, it would read back as an error); batch requests refuse such values too.
    @Test func outOfRangeAndUnstorableValuesAreRefusedOnEveryWritePath() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let sample = context.insert(Sample.self)
            sample.name = "k"
            try sample.setValue(100_000, forKey: "small")
            expectFailure(context, .unencodableValue, key: "small")
            try sample.setValue(-32_768, forKey: "small")
            try context.save()
            #expect(sample.small == .min)
        }
        do {
            _ = try coordinator.execute(BatchInsertRequest(entityName: "Sample", objects: [["name": .string("b"), "medium": .integer(1 << 40)]]))
            Issue.record("inserted")
        } catch { #expect(error.code == .unencodableValue) }
        do {
            _ = try coordinator.execute(BatchInsertRequest(entityName: "Sample", objects: [["name": .string("b"), "amount": .decimal(.nan)]]))
            Issue.record("inserted")
        } catch { #expect(error.code == .unencodableValue) }
        do {
            _ = try coordinator.execute(BatchUpdateRequest(entityName: "Sample", propertiesToUpdate: ["amount": .decimal(.nan)]))
            Issue.record("updated")
        } catch { #expect(error.code == .unencodableValue); #expect(error.key == "amount") }
        let fresh = ObjectContext(.privateQueue, coordinator: coordinator)
        let names = try await fresh.perform { try fresh.fetch(FetchRequest<Sample>()).map(\.name) }
        #expect(names == ["k"])
        try coordinator.close()
    }
}

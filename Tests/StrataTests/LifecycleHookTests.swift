import Foundation
import Testing
@testable import Strata

final class Shelf: ManagedObject {
    @Attribute("name") var name = ""
    @Attribute("bookCount") var bookCount: Int64 = 0
    @Relationship("books", inverse: "shelf", deleteRule: .cascade) var books: Set<ShelvedBook>
}

final class ShelvedBook: ManagedObject {
    @Attribute("title") var title = ""
    @Relationship("shelf", inverse: "books") var shelf: Shelf?
    /// What the hooks saw, in order.
    var events: [String] = []
    /// A cache computed from the title, cleared when the object turns into a fault.
    var cachedShout: String?

    var shout: String {
        if let cachedShout { return cachedShout }
        let value = title.uppercased()
        cachedShout = value
        return value
    }

    override func prepareForDeletion() {
        events.append("prepare shelf=\(shelf?.name ?? "nil")")
        shelf?.bookCount -= 1
        if let context { context.delete(self) }   // deleting itself from its own hook is ignored
    }
    override func willTurnIntoFault() { events.append("will fault=\(isFault) title=\(title)") }
    override func didTurnIntoFault() { events.append("did fault=\(isFault)"); cachedShout = nil }
}

final class Label: ManagedObject {
    struct Empty: Error {}
    @Attribute("text") var text = "untitled"
    @Attribute("color") var color = "red"
    /// Keys validated, in order.
    var validated: [String] = []

    override func validateValue(_ value: PropertyValue, forKey key: String) throws {
        validated.append(key)
        if key == "text", case .string(let text) = value, text.isEmpty { throw Empty() }
        if key == "color", case .string("none") = value {
            throw StrataError(.validation, "Label.color may not be none.", entity: "Label", key: "color")
        }
    }
}

/// `prepareForDeletion()`, `willTurnIntoFault()`/`didTurnIntoFault()`, `refreshAllObjects()`
/// and `validateValue(_:forKey:)`,
/// as Core Data calls them.
@Suite struct LifecycleHookTests {
    private func store(_ dir: TemporaryDirectory) async throws -> (StoreCoordinator, ObjectContext) {
        let coordinator = try await StoreCoordinator(model: try ObjectModel(Shelf.self, ShelvedBook.self, Label.self), store: .sqlite(dir.file()))
        return (coordinator, ObjectContext(.privateQueue, coordinator: coordinator))
    }

    @Test func prepareForDeletionRunsBeforeTheRulesForEveryDeletedObject() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await store(dir)
        try await context.perform {
            let shelf = context.insert(Shelf.self); shelf.name = "S"
            let books = (0..<3).map { i in let book = context.insert(ShelvedBook.self); book.title = "b\(i)"; book.shelf = shelf; return book }
            shelf.bookCount = 3
            try context.save()

            context.delete(books[0])
            #expect(books[0].events == ["prepare shelf=S"])          // its relationship still set
            #expect(books[0].isDeleted)
            #expect(shelf.bookCount == 2)                            // the hook's change is kept
            #expect(!shelf.books.contains(books[0]))                 // then the rules ran

            context.delete(shelf)                                    // cascades to the other two
            #expect(books[1].events == ["prepare shelf=S"] && books[2].events == ["prepare shelf=S"])
            try context.save()
            #expect(try context.count(for: FetchRequest<ShelvedBook>()) == 0)
        }
    }

    @Test func refreshTurnsObjectsIntoFaultsWithTheirHooks() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await store(dir)
        let id = try await context.perform { () throws -> ObjectID in
            let book = context.insert(ShelvedBook.self); book.title = "quiet"
            try context.save()
            return book.objectID
        }
        // Another context changes the row underneath.
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let book = try #require(context.object(with: id) as? ShelvedBook)
            #expect(book.shout == "QUIET")
        }
        try await other.perform { (try other.existingObject(with: id) as? ShelvedBook)?.title = "loud"; try other.save() }
        try await context.perform {
            let book = try #require(context.object(with: id) as? ShelvedBook)
            context.refresh(book, mergeChanges: false)
            #expect(book.events == ["will fault=false title=quiet", "did fault=true"])
            #expect(book.isFault)
            #expect(book.shout == "LOUD")                            // the cache was cleared, the row read again
            context.refresh(book, mergeChanges: false)
            context.refresh(book, mergeChanges: false)               // already a fault: no hooks
            #expect(book.events.count == 4)
        }
    }

    @Test func refreshAllObjectsFaultsCleanObjectsAndKeepsUnsavedEdits() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await store(dir)
        let ids = try await context.perform { () throws -> [ObjectID] in
            let a = context.insert(ShelvedBook.self); a.title = "a"
            let b = context.insert(ShelvedBook.self); b.title = "b"
            try context.save()
            return [a.objectID, b.objectID]
        }
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        try await other.perform {
            for id in ids { (try other.existingObject(with: id) as? ShelvedBook)?.title += " elsewhere" }
            try other.save()
        }
        try await context.perform {
            let a = try #require(context.object(with: ids[0]) as? ShelvedBook)
            let b = try #require(context.object(with: ids[1]) as? ShelvedBook)
            _ = a.title
            b.title = "b edited here"
            let fresh = context.insert(ShelvedBook.self); fresh.title = "new"
            context.refreshAllObjects()
            #expect(a.isFault)
            #expect(a.title == "a elsewhere")
            #expect(!b.isFault && b.title == "b edited here" && b.hasChanges)   // unsaved edit kept
            #expect(fresh.isInserted && fresh.title == "new")
            try context.save()
        }
        let stored = try await other.perform {
            other.reset()
            return try other.fetch(FetchRequest<ShelvedBook>(sortKeys: [SortKey("title")])).map(\.title)
        }
        #expect(stored == ["a elsewhere", "b edited here", "new"])
    }

    @Test func validateValueSeesEveryInsertedAndEachChangedAttribute() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await store(dir)
        try await context.perform {
            let label = context.insert(Label.self)
            try context.save()
            #expect(Set(label.validated) == ["text", "color"])      // an insert: every attribute
            label.validated = []
            label.color = "blue"
            try context.save()
            #expect(label.validated == ["color"])                   // an update: the changed one only
            label.text = ""
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.code == .validation)
            #expect(error?.key == "text")
            #expect(error?.underlying is Label.Empty)
            #expect(label.hasChanges && label.text == "")            // refused, nothing lost
            label.text = "fixed"
            try context.save()
        }
    }

    /// A hook that throws a `StrataError` has it reported as it is, not wrapped in another.
    @Test func aValueHooksStrataErrorIsReportedAsItIs() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await store(dir)
        try await context.perform {
            let label = context.insert(Label.self)
            label.color = "none"
            let error = #expect(throws: StrataError.self) { try context.save() }
            #expect(error?.message == "Label.color may not be none.")
            #expect(error?.key == "color")
            #expect(error?.underlying == nil)
            #expect(label.isInserted)   // refused, nothing lost
        }
    }

    @Test func refetchedObjectsKeepTheirValuesUnlessAskedToRefresh() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await store(dir)
        let ids = try await context.perform { () throws -> [ObjectID] in
            let a = context.insert(Label.self); a.text = "a"
            let b = context.insert(Label.self); b.text = "b"
            try context.save()
            return [a.objectID, b.objectID]
        }
        let other = ObjectContext(.privateQueue, coordinator: coordinator)
        try await other.perform {
            for id in ids { let label = try #require(try other.existingObject(with: id) as? Label); label.text += "2"; label.color = "green" }
            try other.save()
        }
        try await context.perform {
            let b = try #require(context.object(with: ids[1]) as? Label)
            b.color = "mine"                                          // an unsaved edit of one key
            let request = FetchRequest<Label>(sortKeys: [SortKey("text")])
            #expect(try context.fetch(request).map(\.text) == ["a", "b"])  // Core Data's default: values kept
            var refreshing = request
            refreshing.shouldRefreshRefetchedObjects = true
            let refreshed = try context.fetch(refreshing)
            #expect(refreshed.map(\.text) == ["a2", "b2"])
            #expect(refreshed.map(\.color) == ["green", "mine"])      // the unsaved edit is kept
            #expect(b.hasChanges)
        }
        try await other.perform { (try other.existingObject(with: ids[0]) as? Label)?.color = "blue"; try other.save() }
        try await context.perform {
            var asFaults = FetchRequest<Label>(sortKeys: [SortKey("text")])   // the path that reads the rows again
            asFaults.returnsObjectsAsFaults = true
            asFaults.shouldRefreshRefetchedObjects = true
            #expect(try context.fetch(asFaults).map(\.color) == ["blue", "mine"])
            try context.save()                                        // its row version is current: no conflict
        }
        let stored = try await other.perform {
            other.reset()
            return try other.fetch(FetchRequest<Label>(sortKeys: [SortKey("text")])).map { "\($0.text):\($0.color)" }
        }
        #expect(stored == ["a2:blue", "b2:mine"])
    }
}

import Foundation
import Testing
@testable import Strata

/// Predicates through the engine: SQL fetches agree with in-memory evaluation over real
/// managed objects, saved or not.
@Suite struct EnginePredicateTests {
    @Test func publicShapeFromTheIssue() async throws {
        let dir = TemporaryDirectory()
        let coordinator = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file()))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        try await context.perform {
            let folder = context.insert(Folder.self); folder.name = "Inbox"
            let note = context.insert(Note.self); note.title = "Hello"; note.folder = folder
            let other = context.insert(Note.self); other.title = "help"; other.folder = context.insert(Folder.self)
            try context.save()
        }
        let request = FetchRequest<Note>(predicate: try ObjectPredicate("title BEGINSWITH[c] %@ AND folder.name == %@", "he", "Inbox"),
                                         sortKeys: [SortKey("created", ascending: false)])
        let titles = try await context.perform { try context.fetch(request).map(\.title) }
        #expect(titles == ["Hello"])
    }

    static var formats: [(String, [Any?])] { [
        ("title == %@", ["n3"]),
        ("title BEGINSWITH[c] %@", ["N1"]),
        ("rating > %d", [2]),
        ("rating BETWEEN {1, 3}", []),
        ("subtitle == nil", []),
        ("subtitle != nil AND rating < 2", []),
        ("folder.name == %@", ["A"]),
        ("folder == nil", []),
        ("ANY tags.label == %@", ["red"]),
        ("NONE tags.label == %@", ["red"]),
        ("tags.@count >= 2", []),
        ("NOT (title CONTAINS %@) OR rating == 4", ["1"]),
        ("title LIKE[c] %@", ["N*5"]),
        ("title IN %@", [["n1", "n2", "n30"]]),
        ("folder.notes.@count > 5", []),
    ] }

    @Test(arguments: [false, true])
    func sqlAgreesWithMemory(pendingChanges: Bool) async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let folders = ["A", "B", "C"].map { n -> Folder in let f = context.insert(Folder.self); f.name = n; return f }
            let tags = ["red", "blue"].map { l -> Tag in let t = context.insert(Tag.self); t.label = l; return t }
            for i in 0..<40 {
                let note = context.insert(Note.self)
                note.title = "n\(i)"
                note.rating = Int16(i % 5)
                note.subtitle = i % 3 == 0 ? nil : "s\(i)"
                note.folder = i % 7 == 0 ? nil : folders[i % 3]
                note.tags = Set(tags.enumerated().filter { (k, _) in (i >> k) & 1 == 1 }.map(\.1))
            }
            try context.save()
            if pendingChanges {   // unsaved edits that move objects in and out of results
                let all = try context.fetch(FetchRequest<Note>())
                for note in all where note.rating == 1 { note.rating = 4; note.title = "N1x" }
                for note in all.prefix(5) { context.delete(note) }
                let extra = context.insert(Note.self); extra.title = "n3"; extra.folder = folders[0]; extra.tags = [tags[0]]
            }
            let everything = try context.fetch(FetchRequest<Note>())
            for (format, arguments) in Self.formats {
                let predicate = try ObjectPredicate(format: format, arguments: arguments)
                let fetched = Set(try context.fetch(FetchRequest<Note>(predicate: predicate)).map(\.objectID))
                let plan = try FetchPlan(FetchRequest<Note>(predicate: predicate), entity: try #require(testModel.entity(named: "Note")), model: testModel)
                let evaluated = Set(everything.filter { plan.matches($0) }.map(\.objectID))
                #expect(fetched == evaluated, "\(format) pending=\(pendingChanges)")
                #expect(try context.count(for: FetchRequest<Note>(predicate: predicate)) == evaluated.count, "\(format)")
            }
        }
    }

    @Test func malformedPredicateIsATypedErrorWithPosition() {
        do { _ = try ObjectPredicate("title ==", "x"); Issue.record("parsed") }
        catch { #expect(error.code == .malformedPredicate); #expect(error.position != nil) }
    }

    @Test func unknownKeyInFetchIsATypedError() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let request = FetchRequest<Note>(predicate: try ObjectPredicate("nope == 1"))
            do { _ = try context.fetch(request); Issue.record("fetched") }
            catch let error as StrataError { #expect(error.code == .malformedPredicate) }
        }
    }

    @Test func objectArgumentsCompareByID() async throws {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let folder = context.insert(Folder.self)
            let note = context.insert(Note.self); note.folder = folder
            _ = context.insert(Note.self)
            try context.save()
            let found = try context.fetch(FetchRequest<Note>(predicate: try ObjectPredicate("folder == %@", folder)))
            #expect(found == [note])
        }
    }
}

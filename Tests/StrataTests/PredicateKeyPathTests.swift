import Foundation
import Testing
@testable import Strata

/// Two key paths compared, `SELF`, and `$variables`, through a context on a real SQLite file:
/// the store's answer (SQL) and the answer with unsaved changes (memory) agree.
@Suite struct PredicateKeyPathTests {
    /// Notes titled like their folder or not, with ratings and tags.
    func seeded() async throws -> (TemporaryDirectory, ObjectContext) {
        let dir = TemporaryDirectory()
        let (_, context) = try await makeStore(dir)
        try await context.perform {
            let inbox = context.insert(Folder.self); inbox.name = "Inbox"
            let work = context.insert(Folder.self); work.name = "Work"
            let urgent = context.insert(Tag.self); urgent.label = "urgent"
            let rows: [(String, Int16, Folder?, Int)] = [("Inbox", 1, inbox, 0), ("inbox", 2, inbox, 1), ("Work", 0, work, 2), ("Inbox", 3, work, 1), ("x", 4, nil, 0)]
            for (i, (title, rating, folder, tags)) in rows.enumerated() {
                let note = context.insert(Note.self)
                note.title = title
                note.rating = rating
                note.folder = folder
                note.subtitle = i % 2 == 0 ? "s\(i)" : nil
                if tags > 0 { note.tags = [urgent] }
                if tags > 1 { let t = context.insert(Tag.self); t.label = "t\(i)"; note.tags.insert(t) }
            }
            try context.save()
        }
        return (dir, context)
    }

    /// The titles and ratings a predicate selects from the store, then with an unsaved edit
    /// that does not change the answer (so the objects are tested in memory).
    func selected(_ predicate: ObjectPredicate, in context: ObjectContext) async throws -> (store: [String], memory: [String]) {
        try await context.perform {
            let request = FetchRequest<Note>(predicate: predicate, sortKeys: [SortKey("rating")])
            let store = try context.fetch(request).map { "\($0.title)/\($0.rating)" }
            for note in try context.fetch(FetchRequest<Note>()) { note.uniqueIdentifier += "-edited" }   // every object pending
            let memory = try context.fetch(request).map { "\($0.title)/\($0.rating)" }
            context.rollback()
            return (store, memory)
        }
    }

    @Test func twoKeyPathsCompareInSQLAndInMemory() async throws {
        let (dir, context) = try await seeded()
        _ = dir
        let cases: [(String, [String])] = [
            ("title == folder.name", ["Inbox/1", "Work/0"]),
            ("title ==[c] folder.name", ["Inbox/1", "inbox/2", "Work/0"]),
            ("title != folder.name", ["Inbox/3", "inbox/2", "x/4"].sorted { $0.last! < $1.last! }),
            ("rating > tags.@count", ["Inbox/1", "inbox/2", "Inbox/3", "x/4"]),
            ("tags.@count >= rating", ["Work/0"]),
            ("folder.name < title", ["inbox/2"]),
            ("subtitle == subtitle", ["Work/0", "Inbox/1", "inbox/2", "Inbox/3", "x/4"]),   // nil equals nil
            ("subtitle < title", ["x/4"]),                                                // "s…" sorts after the capitals; nil is never ordered
            ("SELF.title == folder.name", ["Inbox/1", "Work/0"]),
        ]
        for (format, expected) in cases {
            let (store, memory) = try await selected(try ObjectPredicate(format), in: context)
            #expect(store == expected.sorted { $0.split(separator: "/")[1] < $1.split(separator: "/")[1] }, "\(format)")
            #expect(memory == store, "\(format): memory differs from SQL")
        }
    }

    @Test func selfNamesTheObject() async throws {
        let (dir, context) = try await seeded()
        _ = dir
        let (first, second) = try await context.perform { () -> (ObjectID, ObjectID) in
            let notes = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("rating")]))
            return (notes[1].objectID, notes[3].objectID)
        }
        let byID = try await selected(try ObjectPredicate("SELF == %@", first), in: context)
        #expect(byID.store == ["Inbox/1"] && byID.memory == byID.store)
        let notSelf = try await selected(try ObjectPredicate("SELF != %@", first), in: context)
        #expect(notSelf.store.count == 4 && notSelf.memory == notSelf.store)
        let inList = try await selected(try ObjectPredicate("SELF IN %@", [first, second]), in: context)
        #expect(inList.store == ["Inbox/1", "Inbox/3"] && inList.memory == inList.store)
        try await context.perform {
            let note = try context.existingObject(with: second)
            #expect(try context.fetch(FetchRequest<Note>(predicate: try ObjectPredicate("%@ == SELF", note))).map(\.objectID) == [second])
            let unsaved = context.insert(Note.self)
            #expect(try context.fetch(FetchRequest<Note>(predicate: try ObjectPredicate("SELF == %@", unsaved))).map(\.objectID) == [unsaved.objectID])
            context.rollback()
            #expect(try ObjectPredicate("SELF IN %@", [first]).description.hasPrefix("SELF IN {"))
        }
    }

    @Test func variablesAreSubstituted() async throws {
        let (dir, context) = try await seeded()
        _ = dir
        let template = try ObjectPredicate("rating >= $minimum AND folder == $folder AND title IN[c] $titles")
        #expect(template.variableNames == ["minimum", "folder", "titles"])
        #expect(template.description == "rating >= $minimum AND folder == $folder AND title IN[c] $titles")
        try await context.perform {
            let inbox = try context.fetch(FetchRequest<Folder>(predicate: try ObjectPredicate("name == 'Inbox'")))[0]
            let predicate = try template.withSubstitutionVariables(["minimum": 2, "folder": inbox, "titles": ["INBOX", "work"]])
            #expect(predicate.variableNames.isEmpty)
            #expect(try context.fetch(FetchRequest<Note>(predicate: predicate)).map(\.rating) == [2])
            let mirrored = try ObjectPredicate("$limit > rating").withSubstitutionVariables(["limit": 1])
            #expect(try context.fetch(FetchRequest<Note>(predicate: mirrored)).map(\.rating) == [0])
            let none = try ObjectPredicate("subtitle == $s").withSubstitutionVariables(["s": nil as String?])
            #expect(try context.count(for: FetchRequest<Note>(predicate: none)) == 2)
            // Inside a SUBQUERY, its own variable is a key path; any other is substituted.
            let sub = try ObjectPredicate("SUBQUERY(tags, $t, $t.label == $label).@count > 0").withSubstitutionVariables(["label": "urgent"])
            #expect(try context.count(for: FetchRequest<Note>(predicate: sub)) == 3)
        }
    }

    @Test func theBuilderWritesTheSamePredicates() throws {
        let id = ObjectID(entity: testModel.entity(named: "Note")!, key: 4)   // programmer error: test model
        let pairs: [(ObjectPredicate, String)] = [
            (.key("rating") > .key("tags.@count"), "rating > tags.@count"),
            (.key("rating") <= .key("tags.@count"), "rating <= tags.@count"),
            (.key("title").equals(.key("folder.name"), options: .caseInsensitive), "title ==[c] folder.name"),
            (.key("folder").notEquals(.key("folder")), "folder != folder"),
            (.key("SELF") == id, "SELF == %@"),
            (.key("SELF.title") < .key("subtitle"), "title < subtitle"),
            (.key("rating") >= .variable("minimum"), "rating >= $minimum"),
            (.variable("$limit") > .key("rating"), "rating < $limit"),
            (.key("subtitle").equals(.variable("s")), "subtitle == $s"),
        ]
        for (built, format) in pairs {
            #expect(built == (try ObjectPredicate(format: format, arguments: format.contains("%@") ? [id] : [])), "\(format): built \(built)")
        }
        #expect((PredicateKey.key("rating") >= .variable("minimum")).variableNames == ["minimum"])
    }

    @Test func badKeyPathComparisonsAndVariablesAreTypedErrors() async throws {
        let (dir, context) = try await seeded()
        _ = dir
        let refusedAtCompile = [
            "title > rating",                 // a string and a number
            "folder == title",                // an object and a string
            "tags.label == title",            // through a to-many
            "ANY tags.label == title",        // a quantifier with two key paths
            "title == folder.notes.title",    // through a to-many on the right
            "folder < folder",                // objects are not ordered
            "rating ==[c] tags.@count",       // [c] on numbers
            "rating > $minimum",              // a variable left without a value
            "title == metadata",              // a transformable
        ]
        try await context.perform {
            for format in refusedAtCompile {
                #expect(throws: StrataError.self, "\(format)") { try context.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format))) }
                do { _ = try context.fetch(FetchRequest<Note>(predicate: try ObjectPredicate(format))) } catch let error as StrataError {
                    #expect(error.code == .malformedPredicate, "\(format): \(error)")
                }
            }
        }
        for format in ["title BEGINSWITH subtitle", "rating BETWEEN rating", "rating IN tags"] {
            #expect(throws: StrataError.self, "\(format)") { try ObjectPredicate(format) }
        }
        let template = try ObjectPredicate("rating > $minimum AND title BEGINSWITH $prefix")
        for variables: [String: Any?] in [["minimum": 1], ["minimum": [1, 2], "prefix": "a"], ["minimum": 1, "prefix": 3], ["minimum": NSObject(), "prefix": "a"]] {
            do {
                _ = try template.withSubstitutionVariables(variables)
                Issue.record("\(variables) substituted")
            } catch {
                #expect(error.code == .malformedPredicate)
                #expect(error.key == "minimum" || error.key == "prefix", "\(error)")
            }
        }
    }
}

import Foundation
import Testing
@testable import Strata

/// Foundation's `#Predicate` and `SortDescriptor` translated to ObjectPredicate and SortKey:
/// the same predicate as the format syntax, the same SQL, the same rows.
@Suite struct SwiftPredicateTests {
    /// One predicate written both ways.
    struct Case: Sendable, CustomStringConvertible {
        var format: String
        var arguments: [any Sendable] = []
        var swift: Predicate<Note>
        var description: String { format }
    }

    static let since = Date(timeIntervalSinceReferenceDate: 1_000)
    static let minimum: Int16 = 2
    static let closed: ClosedRange<Int16> = 1...3

    static let cases: [Case] = [
        Case(format: "rating > 3", swift: #Predicate { $0.rating > 3 }),
        Case(format: "rating > 3", swift: #Predicate { 3 < $0.rating }),
        Case(format: "rating >= 2 AND title CONTAINS \"1\"", swift: #Predicate { $0.rating >= 2 && $0.title.contains("1") }),
        Case(format: "rating == 1 OR rating != 2", swift: #Predicate { $0.rating == 1 || $0.rating != 2 }),
        Case(format: "NOT rating < 2", swift: #Predicate { !($0.rating < 2) }),
        Case(format: "rating <= 2", swift: #Predicate { $0.rating <= minimum }),
        Case(format: "(rating == 0 OR rating == 4) AND NOT title BEGINSWITH \"n1\"",
             swift: #Predicate { ($0.rating == 0 || $0.rating == 4) && !$0.title.starts(with: "n1") }),
        Case(format: "subtitle == nil", swift: #Predicate { $0.subtitle == nil }),
        Case(format: "subtitle != nil", swift: #Predicate { $0.subtitle != nil }),
        Case(format: "subtitle == \"odd\"", swift: #Predicate { $0.subtitle == "odd" }),
        Case(format: "folder.name == \"A\"", swift: #Predicate { $0.folder?.name == "A" }),
        Case(format: "folder == nil", swift: #Predicate { $0.folder == nil }),
        Case(format: "folder.owner.name == \"P\"", swift: #Predicate { $0.folder?.owner?.name == "P" }),
        Case(format: "folder != nil AND folder.name == \"B\"", swift: #Predicate { $0.folder != nil && $0.folder!.name == "B" }),
        Case(format: "title BEGINSWITH \"n1\"", swift: #Predicate { $0.title.starts(with: "n1") }),
        Case(format: "subtitle CONTAINS \"d\"", swift: #Predicate { $0.subtitle?.contains("d") == true }),
        Case(format: "subtitle CONTAINS \"d\"", swift: #Predicate { $0.subtitle?.contains("d") ?? false }),
        Case(format: "NOT subtitle CONTAINS \"d\"", swift: #Predicate { $0.subtitle?.contains("d") != true }),
        Case(format: "title IN {\"n1\", \"n2\", \"zz\"}", swift: #Predicate { ["n1", "n2", "zz"].contains($0.title) }),
        Case(format: "rating BETWEEN {1, 3}", swift: #Predicate { (1...3).contains($0.rating) }),
        Case(format: "rating BETWEEN {1, 3}", swift: #Predicate { closed.contains($0.rating) }),
        Case(format: "rating >= 1 AND rating < 3", swift: #Predicate { (1..<3).contains($0.rating) }),
        Case(format: "created > %@", arguments: [since], swift: #Predicate { $0.created > since }),
        Case(format: "title != uniqueIdentifier", swift: #Predicate { $0.title != $0.uniqueIdentifier }),
        Case(format: "tags.@count > 1", swift: #Predicate { $0.tags.count > 1 }),
        Case(format: "tags.@count == 0", swift: #Predicate { $0.tags.isEmpty }),
        Case(format: "NOT tags.@count == 0", swift: #Predicate { !$0.tags.isEmpty }),
        Case(format: "ANY tags.label == \"t1\"", swift: #Predicate { $0.tags.contains { $0.label == "t1" } }),
        Case(format: "ALL tags.label != \"t1\"", swift: #Predicate { $0.tags.allSatisfy { $0.label != "t1" } }),
        Case(format: "SUBQUERY(tags, $e1, $e1.label BEGINSWITH \"t\" AND $e1.label != \"t2\").@count > 0",
             swift: #Predicate { $0.tags.contains { $0.label.starts(with: "t") && $0.label != "t2" } }),
        Case(format: "SUBQUERY(tags, $e1, NOT ($e1.label == \"t0\" OR $e1.label == \"t1\")).@count == 0",
             swift: #Predicate { $0.tags.allSatisfy { $0.label == "t0" || $0.label == "t1" } }),
        Case(format: "folder.notes.@count == 13", swift: #Predicate { $0.folder?.notes.count == 13 }),
        Case(format: "SUBQUERY(tags, $e1, ANY $e1.notes.rating > 3).@count > 0",
             swift: #Predicate { $0.tags.contains { $0.notes.contains { $0.rating > 3 } } }),
        Case(format: "SUBQUERY(tags, $e1, $e1.notes.@count > 10).@count > 0",
             swift: #Predicate { $0.tags.contains { $0.notes.count > 10 } }),
        Case(format: "ANY folder.notes.title == \"n3\"", swift: #Predicate { $0.folder?.notes.contains { $0.title == "n3" } == true }),
        Case(format: "title == \"\" OR NOT subtitle == \"\"", swift: #Predicate { $0.title.isEmpty || !($0.subtitle?.isEmpty == true) }),
        Case(format: "TRUEPREDICATE", swift: #Predicate { _ in true }),
    ]

    /// A store with 30 notes n0…n29: ratings 0…4, every other one with a subtitle, in folders A
    /// and B (A owned by P), tagged t0…t2 by position.
    func seeded() async throws -> (TemporaryDirectory, StoreCoordinator) {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        try await context.perform {
            let owner = context.insert(Person.self)
            owner.name = "P"
            let folders = ["A", "B"].map { name -> Folder in let f = context.insert(Folder.self); f.name = name; return f }
            folders[0].owner = owner
            let tags = (0..<3).map { i -> Tag in let t = context.insert(Tag.self); t.label = "t\(i)"; return t }
            for i in 0..<30 {
                let note = context.insert(Note.self)
                note.title = "n\(i)"
                note.rating = Int16(i % 5)
                note.created = Date(timeIntervalSinceReferenceDate: Double(i * 100))
                note.subtitle = i % 2 == 0 ? nil : (i % 3 == 0 ? "odd" : "even")
                if i % 7 != 0 { note.folder = folders[i % 2] }
                note.tags = Set(tags.prefix(i % 4))
                if i % 10 == 9 { note.uniqueIdentifier = note.title }
            }
            try context.save()
        }
        return (dir, coordinator)
    }

    @Test(arguments: cases)
    func translatesToTheFormatSyntaxsPredicate(_ c: Case) throws {
        let expected = try ObjectPredicate(format: c.format, arguments: c.arguments.map { $0 })
        let translated = try ObjectPredicate(c.swift)
        #expect(translated == expected)
        #expect(translated.description == expected.description)
    }

    @Test func fetchesTheSameRowsWithTheSameSQL() async throws {
        let (dir, coordinator) = try await seeded()
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        var nonEmpty = 0
        for c in Self.cases {
            let byFormat = FetchRequest<Note>(predicate: try ObjectPredicate(format: c.format, arguments: c.arguments.map { $0 }), sortKeys: [SortKey("title")])
            let bySwift = try FetchRequest<Note>(predicate: c.swift, sortBy: [SortDescriptor(\.title)])
            let (expected, formatSQL) = try await coordinator.recordingSQL {
                try await context.perform { try context.fetch(byFormat).map(\.title) }
            }
            let (actual, swiftSQL) = try await coordinator.recordingSQL {
                try await context.perform { try context.fetch(bySwift).map(\.title) }
            }
            #expect(actual == expected, "\(c.format)")
            #expect(swiftSQL == formatSQL, "\(c.format)")
            // The Swift predicate's own evaluation agrees with the rows fetched.
            let all = try await context.perform { try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("title")])) }
            let evaluated = try await context.perform { try all.filter { try c.swift.evaluate($0) }.map(\.title) }
            #expect(evaluated == expected, "\(c.format)")
            if !expected.isEmpty && expected.count < 30 { nonEmpty += 1 }
        }
        #expect(nonEmpty > Self.cases.count / 2)   // the cases discriminate, not all-or-nothing
    }

    /// The one documented difference from Swift: a nil key is never IN a list, even one with nil.
    @Test func aNilKeyIsNeverInAList() async throws {
        let list: [String?] = [nil, "odd"]
        let swift = #Predicate<Note> { list.contains($0.subtitle) }
        let translated = try ObjectPredicate(swift)
        #expect(translated == (try ObjectPredicate("subtitle IN {nil, \"odd\"}")))
        let (dir, coordinator) = try await seeded()
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let (fetched, inSwift) = try await context.perform {
            (try context.fetch(FetchRequest<Note>(predicate: translated)).count,
             try context.fetch(FetchRequest<Note>()).filter { try swift.evaluate($0) }.count)
        }
        #expect(fetched == 5)        // n3, n9, n15, n21, n27
        #expect(inSwift == 5 + 15)   // and the 15 notes without a subtitle
    }

    @Test func unsupportedExpressionsThrowATypedError() throws {
        let unsupported: [(String, Predicate<Note>)] = [
            ("Arithmetic", #Predicate { $0.rating + 1 > 3 }),
            ("Conditional", #Predicate { ($0.rating > 2 ? $0.title : "x") == "n3" }),
            ("KeyPath", #Predicate { $0.title.count > 2 }),
            ("NilCoalesce", #Predicate { ($0.subtitle ?? "") == "x" }),
            ("Equal", #Predicate { $0.subtitle?.contains("d") == false }),
            ("KeyPath", #Predicate { $0.awakenedFromFetch }),
            ("KeyPath", #Predicate { $0.awakeFromFetchCount > 0 }),
            ("NilCoalesce", #Predicate { ($0.folder?.notes.count ?? 0) > 5 }),
        ]
        for (name, predicate) in unsupported {
            let error = #expect(throws: StrataError.self, "\(name)") { try ObjectPredicate(predicate) }
            #expect(error?.code == .unsupportedPredicate, "\(name)")
            #expect(error?.entity == "Note", "\(name)")
            #expect(error?.message.contains("Cannot translate \(name) ") == true, "\(error?.message ?? "")")
        }
    }

    @Test func aRequestWithAnUntranslatablePartThrows() throws {
        let predicate = #expect(throws: StrataError.self) {
            try FetchRequest<Note>(predicate: #Predicate { $0.rating + 1 > 3 }, sortBy: [SortDescriptor(\.title)])
        }
        #expect(predicate?.code == .unsupportedPredicate)
        let sort = #expect(throws: StrataError.self) {
            try FetchRequest<Note>(predicate: #Predicate { $0.rating > 3 }, sortBy: [SortDescriptor(\.awakeFromFetchCount)])
        }
        #expect(sort?.code == .unsupportedPredicate)
        let fine = try FetchRequest<Note>(predicate: #Predicate { $0.rating > 3 }, sortBy: [SortDescriptor(\.title)])
        #expect(fine.predicate == (try ObjectPredicate("rating > 3")))
        #expect(fine.sortKeys == [SortKey("title")])
    }

    @Test func sortDescriptorsMapToSortKeys() throws {
        #expect(try SortKey(SortDescriptor(\Note.title)) == SortKey("title"))
        #expect(try SortKey(SortDescriptor(\Note.title, order: .reverse)) == SortKey("title", ascending: false))
        #expect(try SortKey(SortDescriptor(\Note.subtitle)) == SortKey("subtitle"))
        #expect(try SortKey(SortDescriptor(\Note.created, order: .reverse)) == SortKey("created", ascending: false))
        #expect(try SortKey(SortDescriptor(\Note.rating)) == SortKey("rating"))
        #expect(try SortKey(SortDescriptor(\Note.folder?.name)) == SortKey("folder.name"))
        #expect(try SortKey(SortDescriptor(\Note.folder?.owner?.name, order: .reverse)) == SortKey("folder.owner.name", ascending: false))
        #expect(try SortKey(\Folder.notes.count) == SortKey("notes.@count"))
        #expect(try SortKey(\Note.folder) == SortKey("folder"))
        #expect(try SortKey(\Note.title, comparison: .localized) == SortKey("title", comparison: .localized))
        let request = try FetchRequest<Note>(sortBy: [SortDescriptor(\.rating, order: .reverse), SortDescriptor(\.title)])
        #expect(request.sortKeys == [SortKey("rating", ascending: false), SortKey("title")])
        #expect(request.predicate == nil)
        let error = #expect(throws: StrataError.self) { try SortKey(SortDescriptor(\Note.awakeFromFetchCount)) }
        #expect(error?.code == .unsupportedPredicate)
        #expect(error?.entity == "Note")
    }

    @Test func sortDescriptorsFetchInTheSameOrder() async throws {
        let (dir, coordinator) = try await seeded()
        _ = dir
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let bySwift = try FetchRequest<Note>(predicate: #Predicate { $0.folder != nil },
                                             sortBy: [SortDescriptor(\.folder?.name, order: .reverse), SortDescriptor(\.rating), SortDescriptor(\.title)])
        let byKeys = FetchRequest<Note>(predicate: try ObjectPredicate("folder != nil"),
                                        sortKeys: [SortKey("folder.name", ascending: false), SortKey("rating"), SortKey("title")])
        let (a, b) = try await context.perform { (try context.fetch(bySwift).map(\.title), try context.fetch(byKeys).map(\.title)) }
        #expect(a == b)
        #expect(a.count == 25)
        #expect(a.prefix(3) == ["n15", "n25", "n5"])   // folder B first, then rating 0, then title by bytes
    }
}

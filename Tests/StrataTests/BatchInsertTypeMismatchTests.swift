import Foundation
import GRDB
import Testing
@testable import Strata

/// A batch insert compares each value's kind with its attribute's type by batch update's rule:
/// a value of another kind stops the insert with `.invalidRequest` (the key, the type, the
/// value and the row in its message) and nothing written, in the handler form and the array
/// form alike; an `.integer` for a `double` is stored as a double, the `.data` of a
/// transformable as given.
@Suite struct BatchInsertTypeMismatchTests {
    /// One value of each kind (`objectID` is a saved sample's).
    static func everyKind(objectID: ObjectID) -> [PropertyValue] {
        [.null, .integer(3), .double(1.5), .bool(true), .string("x"), .date(Date(timeIntervalSince1970: 7)), .data(Data("[2]".utf8)),
         .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F") ?? UUID()), .url(URL(string: "https://example.com/a") ?? URL(fileURLWithPath: "/")),
         .decimal(Decimal(string: "1.25") ?? 0), .transformed(TransformedValue(data: Data("[1]".utf8), value: [1.0])), .objectID(objectID), .objectIDs([objectID])]
    }

    /// Text given for an integer attribute is refused, where it used to be stored as text and
    /// make every later fetch of the row fail as undecodable.
    @Test func aValueOfAnotherTypeIsRefused() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        let request = BatchInsertRequest(entityName: "Sample", keys: ["name", "large"], rows: [[.string("a"), .integer(1)], [.string("b"), .string("x")]])
        let result = Result { () throws(StrataError) in try coordinator.execute(request) }
        guard case .failure(let error) = result else { Issue.record("inserted \(result)"); return }
        #expect(error.code == .invalidRequest)
        #expect(error.entity == "Sample" && error.key == "large")
        #expect(error.message == "Sample.large is of type int64 and cannot hold \(PropertyValue.string("x")) (row 1).")
        #expect(try await coordinator.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Sample") } == 0)
        #expect(try await context.perform { try context.fetch(FetchRequest<Sample>()).count } == 0)
    }

    /// For every attribute and every kind of value, the handler form and the array form give
    /// the same verdict, and batch update's verdict (the differential: one rule for both).
    /// A refusal writes nothing; every accepted row reads back.
    @Test func everyAttributeTypeTakesWhatABatchUpdateTakes() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await openSamples(dir.file())
        let seed = try coordinator.execute(BatchInsertRequest(entityName: "Sample", keys: BatchInsertValueTests.sampleKeys, rows: [try BatchInsertValueTests.sampleRow(0)]))
        let good = try BatchInsertValueTests.sampleRow(3)
        func storedRows() async throws -> Int {
            try await coordinator.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM Sample") ?? -1 }
        }
        var accepted = 0
        for (k, key) in BatchInsertValueTests.sampleKeys.enumerated() where key != "name" {
            let type = try #require(sampleModel.entity(named: "Sample")?.attributes.first { $0.name == key }?.type)
            for (v, value) in Self.everyKind(objectID: seed[0]).enumerated() {
                let label = "\(key) (\(type.rawValue)) given \(value)"
                // Rows 0 and 2 are good, row 1 holds the value.
                let rows: [[PropertyValue]] = (0..<3).map { [.string("\(key)-\(v)-array-\($0)"), $0 == 1 ? value : good[k]] }
                let handled = BatchInsertRequest(entityName: "Sample", keys: ["name", key], count: 3) { i, values in
                    values = [.string("\(key)-\(v)-handler-\(i)"), i == 1 ? value : good[k]]
                }
                let before = try await storedRows()
                let byHandler = Result { () throws(StrataError) in try coordinator.execute(handled) }
                let byArray = Result { () throws(StrataError) in try coordinator.execute(BatchInsertRequest(entityName: "Sample", keys: ["name", key], rows: rows)) }
                let byUpdate = Result { () throws(StrataError) in
                    try coordinator.execute(BatchUpdateRequest(entityName: "Sample", predicate: .key("name") == "s0", propertiesToUpdate: [key: value]))
                }
                let codes = [byHandler, byArray].map { result -> StrataError.Code? in if case .failure(let e) = result { e.code } else { nil } }
                let updateCode: StrataError.Code? = if case .failure(let e) = byUpdate { e.code } else { nil }
                #expect(codes[0] == codes[1], "\(label): handler \(String(describing: codes[0])), array \(String(describing: codes[1]))")
                #expect(codes[0] == updateCode, "\(label): insert \(String(describing: codes[0])), update \(String(describing: updateCode))")
                switch (byHandler, byArray) {
                case (.failure(let handler), .failure(let array)):
                    let after = try await storedRows()
                    #expect(after == before, "\(label): a refused insert wrote rows")
                    guard handler.code == .invalidRequest else { continue }
                    for error in [handler, array] {
                        #expect(error.key == key && error.entity == "Sample", "\(label): \(error)")
                        #expect(error.message == "Sample.\(key) is of type \(type.rawValue) and cannot hold \(value) (row 1).", "\(label): \(error.message)")
                    }
                case (.success(let a), .success(let b)):
                    accepted += 1
                    let after = try await storedRows()
                    #expect(a.count == 3 && b.count == 3 && after == before + 6, "\(label)")
                default:
                    break   // the verdicts differ: recorded above
                }
            }
        }
        // Per attribute: its own kind, nil when optional (identifier, link), an integer for
        // `real`, the data of `numbers`.
        #expect(accepted == 12 + 2 + 1 + 1)
        // Every row written reads back: nothing of another kind was stored.
        let fetched = try await context.perform { try context.fetch(FetchRequest<Sample>()) .count }
        #expect(fetched == 1 + accepted * 6)
        let reals = try await context.perform { try context.fetch(FetchRequest<Sample>(predicate: .key("name") == "real-1-array-1")).map(\.real) }
        #expect(reals == [3.0])
        #expect(try await coordinator.database.read { db in try String.fetchAll(db, sql: "SELECT typeof(real) FROM Sample WHERE name LIKE 'real-1-%-1'") } == ["real", "real"])
    }

    /// A to-one takes an object ID of its destination entity (or one below it) or nil, as in
    /// a batch update: text, or a saved object of another entity, is `.invalidRequest` with
    /// the key, and nothing is written.
    @Test func aToOneTakesAnObjectOfItsDestination() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (folder, note) = try await context.perform { () throws -> (ObjectID, ObjectID) in
            let folder = context.insert(Folder.self)
            let note = context.insert(Note.self)
            note.uniqueIdentifier = "saved"
            try context.save()
            return (folder.objectID, note.objectID)
        }
        func insert(_ value: PropertyValue) -> StrataError? {
            let request = BatchInsertRequest(entityName: "Note", keys: ["folder", "uniqueIdentifier"], count: 2) { i, values in
                values = [i == 1 ? value : .objectID(folder), .string("u\(i)-\(value)")]
            }
            do { _ = try coordinator.execute(request); return nil } catch { return error }
        }
        let text = insert(.string("x"))
        #expect(text?.code == .invalidRequest && text?.key == "folder")
        #expect(text?.message == "Note.folder is a to-one and takes an object ID or nil, not \(PropertyValue.string("x")) (row 1).")
        let other = insert(.objectID(note))
        #expect(other?.code == .invalidRequest && other?.key == "folder" && other?.objectID == note)
        #expect(other?.message == "Note.folder points at Folder, not at Note (row 1).")
        #expect(insert(.integer(folder.key))?.code == .invalidRequest)
        #expect(try await context.perform { try context.count(for: FetchRequest<Note>()) } == 1)
        #expect(insert(.objectID(folder)) == nil)
        #expect(try await context.perform { try context.count(for: FetchRequest<Note>()) } == 3)
    }
}

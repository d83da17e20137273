import Foundation
import Testing
@testable import Strata

/// A batch insert whose rows a handler writes one at a time (Core Data's `dictionaryHandler`).
@Suite struct BatchInsertHandlerTests {
    /// The handler is asked for each row in order, into an array of one value per key, and
    /// the rows it wrote are the rows stored, as the array form would store them.
    @Test func handlerRowsAreStoredInOrder() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let folderID = try await context.perform { () throws -> ObjectID in
            let folder = context.insert(Folder.self)
            try context.save()
            return folder.objectID
        }
        let asked = Locked<[Int]>([])
        let ids = try coordinator.execute(BatchInsertRequest(entityName: "Note", keys: ["title", "folder", "uniqueIdentifier"], count: 40) { i, values in
            asked.withLock { $0.append(i) }
            #expect(values.count == 3)
            values[0] = .string("h\(i)")
            values[1] = i.isMultiple(of: 2) ? .objectID(folderID) : .null
            values[2] = .string("u\(i)")
        })
        #expect(asked.withLock { $0 } == Array(0..<40))
        #expect(ids.count == 40 && Set(ids).count == 40)
        let rows = try await context.perform { () throws -> [String: (String, Bool)] in
            let notes = try context.fetch(FetchRequest<Note>())
            return Dictionary(uniqueKeysWithValues: notes.map { ($0.uniqueIdentifier, ($0.title, $0.folder?.objectID == folderID)) })
        }
        #expect(rows.count == 40)
        for i in 0..<40 {
            #expect(rows["u\(i)"]?.0 == "h\(i)")
            #expect(rows["u\(i)"]?.1 == i.isMultiple(of: 2))
        }
    }

    /// A handler that throws, a row of the wrong width, a nil required value and a unique
    /// collision each stop the insert with a typed error and nothing written.
    @Test func failuresWriteNothing() async throws {
        struct Refused: Error {}
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        func attempt(_ count: Int, _ handler: @escaping BatchInsertRequest.RowHandler) -> StrataError? {
            let request = BatchInsertRequest(entityName: "Note", keys: ["title", "uniqueIdentifier"], count: count, handler: handler)
            let result = Result { () throws(StrataError) in try coordinator.execute(request) }
            if case .failure(let error) = result { return error }
            return nil
        }
        let thrown = attempt(10) { i, values in
            if i == 7 { throw Refused() }
            values = [.string("t\(i)"), .string("a\(i)")]
        }
        #expect(thrown?.code == .invalidRequest)
        #expect(thrown?.underlying is Refused)
        let ownError = attempt(10) { i, values in
            if i == 3 { throw StrataError(.validation, "mine") }
            values = [.string("t\(i)"), .string("b\(i)")]
        }
        #expect(ownError?.code == .validation && ownError?.message == "mine")
        let narrow = attempt(10) { i, values in values = i == 5 ? [.string("t")] : [.string("t\(i)"), .string("c\(i)")] }
        #expect(narrow?.code == .invalidRequest)
        let required = attempt(10) { i, values in values = [i == 9 ? .null : .string("t\(i)"), .string("d\(i)")] }
        #expect(required?.code == .validation)
        let collision = attempt(10) { i, values in values = [.string("t\(i)"), .string(i == 8 ? "e0" : "e\(i)")] }
        #expect(collision?.code == .conflict)
        #expect(try await context.perform { try context.count(for: FetchRequest<Note>()) } == 0)
        // A request for no rows writes nothing and never asks the handler.
        #expect(try coordinator.execute(BatchInsertRequest(entityName: "Note", keys: ["title"], count: 0) { _, _ in Issue.record("asked") }).isEmpty)
    }

    /// A to-one naming an object the store does not hold (deleted meanwhile, say) is
    /// `.objectNotFound` naming the key, the row and the target, as in a batch update, in the
    /// handler form and the array form; nothing is written. Before, the commit's deferred
    /// foreign-key check failed and the insert was a `.conflict` with a save's message.
    @Test(arguments: [false, true])
    func aToOneTargetNotInTheStoreIsObjectNotFound(byHandler: Bool) async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let (kept, gone) = try await context.perform { () throws -> (ObjectID, ObjectID) in
            let kept = context.insert(Folder.self), gone = context.insert(Folder.self)
            try context.save()
            let ids = (kept.objectID, gone.objectID)
            context.delete(gone)
            try context.save()
            return ids
        }
        let rows: [[PropertyValue]] = (0..<6).map { [.string("t\($0)"), .string("u\($0)"), .objectID($0 == 4 ? gone : kept)] }
        let keys = ["title", "uniqueIdentifier", "folder"]
        let request = byHandler
            ? BatchInsertRequest(entityName: "Note", keys: keys, count: rows.count) { i, values in values = rows[i] }
            : BatchInsertRequest(entityName: "Note", keys: keys, rows: rows)
        let error = #expect(throws: StrataError.self) { try coordinator.execute(request) }
        #expect(error?.code == .objectNotFound)
        #expect(error?.entity == "Note" && error?.key == "folder")
        #expect(error?.objectID == gone)
        #expect(error?.message.contains("row 4") == true)
        #expect(try await context.perform { try context.count(for: FetchRequest<Note>()) } == 0)
        // The same rows with the target present are written.
        let fixed = rows.map { [$0[0], $0[1], .objectID(kept)] }
        #expect(try coordinator.execute(BatchInsertRequest(entityName: "Note", keys: keys, rows: fixed)).count == 6)
    }
}

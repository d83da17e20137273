import Foundation
import GRDB
import Testing
@testable import Strata

/// Primary keys handed out by a coordinator that remembers its key counters between its own
/// writes (`StoreKeys`): a one-object save writes its row and the counter and reads nothing,
/// and the counters stay exact when another connection writes or a save fails.
@Suite struct StoreKeysTests {
    /// Inserts one note in `context`, saves, and returns its key.
    func saveOneNote(_ context: ObjectContext, title: String = "n", uniqueIdentifier: String? = nil) async throws -> Int64 {
        try await context.perform { () throws -> Int64 in
            let note = context.insert(Note.self)
            note.title = title
            if let uniqueIdentifier { note.uniqueIdentifier = uniqueIdentifier }
            try context.save()
            return note.objectID.key
        }
    }

    func storedCounter(_ url: URL, _ entity: String) throws -> Int64? {
        try Fixture.rows(url, "SELECT max_key FROM _strata_keys WHERE entity = '\(entity)'").first?["max_key"]
    }

    @Test func oneObjectSaveWritesItsRowAndTheCounterAndReadsNothing() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        #expect(try await saveOneNote(context) == 1)
        let (key, sql) = try await coordinator.recordingSQL { try await saveOneNote(context) }
        #expect(key == 2)
        #expect(sql.filter { $0.hasPrefix("SELECT") }.isEmpty, "\(sql)")
        #expect(sql.filter { $0.contains("_strata_keys") } == ["UPDATE _strata_keys SET max_key = ? WHERE entity = ?"], "\(sql)")
        #expect(sql.count == 2, "\(sql)")   // the note's INSERT and the counter's UPDATE
        #expect(try storedCounter(dir.file("store.sqlite"), "Note") == 2)
    }

    @Test func twoCoordinatorsOnOneFileNeverShareAKey() async throws {
        let dir = TemporaryDirectory()
        let (first, a) = try await makeStore(dir)
        let second = try await StoreCoordinator(model: testModel, store: .sqlite(dir.file("store.sqlite")))
        defer { try? first.close(); try? second.close() }
        let b = ObjectContext(.privateQueue, coordinator: second)
        var keys: [Int64] = []
        for round in 0..<5 {
            keys.append(try await saveOneNote(a, title: "a\(round)"))
            keys.append(try await saveOneNote(b, title: "b\(round)"))
        }
        // Each coordinator notices the other's commit and reads the counter again: no gaps, no reuse.
        #expect(keys == Array(1...10))
        #expect(try storedCounter(dir.file("store.sqlite"), "Note") == 10)
        let (key, sql) = try await first.recordingSQL { try await saveOneNote(a, title: "after") }
        #expect(key == 11)
        #expect(sql.contains("SELECT max_key FROM _strata_keys WHERE entity = ?"), "\(sql)")
    }

    @Test func aFailedSaveLeavesTheCounterAsStored() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        defer { try? coordinator.close() }
        #expect(try await saveOneNote(context, uniqueIdentifier: "same") == 1)
        // Collides with the stored unique value: the transaction, and the keys it reserved, roll back.
        await #expect(throws: StrataError.self) { try await saveOneNote(context, uniqueIdentifier: "same") }
        try await context.perform { context.rollback() }
        #expect(try storedCounter(dir.file("store.sqlite"), "Note") == 1)
        #expect(try await saveOneNote(context) == 2)
        #expect(try storedCounter(dir.file("store.sqlite"), "Note") == 2)
    }
}

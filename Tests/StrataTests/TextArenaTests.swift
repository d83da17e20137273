import Foundation
import GRDB
import GRDBSQLite
import Testing
@testable import Strata

/// A save binds its texts from a ``TextArena`` (SQLite reads them in place): every text a row
/// binds stays where it is until the row is written, however many chunks the row fills.
@Suite struct TextArenaTests {
    /// Texts of every size around the arena's chunk, empty and non-ASCII ones included.
    static let texts: [String] = [
        "", "a", String(repeating: "b", count: 15), String(repeating: "c", count: 16), "ünïcødé ✓ 🚀",
        String(repeating: "d", count: TextArena.chunkSize - 1), String(repeating: "e", count: TextArena.chunkSize),
        String(repeating: "f", count: TextArena.chunkSize + 1), String(repeating: "g", count: 3 * TextArena.chunkSize),
    ]

    /// A long text as its length, first and last characters (a failure prints that, not the text).
    static func summary(_ text: String) -> String { "\(text.count) \(text.first.map(String.init) ?? "")…\(text.last.map(String.init) ?? "")" }

    /// Three texts of one statement that together overflow a chunk: each reads back as bound.
    @Test func aStatementsTextsStayPutWhileTheArenaMovesToANewChunk() throws {
        let arena = TextArena()
        let database = try DatabaseQueue()
        let chunk = TextArena.chunkSize
        let bound = [String(repeating: "x", count: chunk / 2), String(repeating: "y", count: chunk / 2 + 10), String(repeating: "z", count: chunk * 2), ""]
        for round in 0..<3 {   // the second and third rounds reuse the chunks after a reset
            arena.reset()
            let read: [String?] = try database.read { db in
                let statement = try db.makeStatement(sql: "SELECT ?1, ?2, ?3, ?4")
                let handle = statement.sqliteStatement
                let texts = bound.map { "\($0)\(round)" }
                for (i, text) in texts.enumerated() { arena.bind(text, to: handle, at: Int32(i + 1)) }
                defer { sqlite3_reset(handle); sqlite3_clear_bindings(handle) }
                guard sqlite3_step(handle) == SQLITE_ROW else { return [] }
                return (0..<4).map { i in sqlite3_column_text(handle, Int32(i)).map { String(cString: $0) } }
            }
            #expect(read.map { $0.map(Self.summary) } == bound.map { Self.summary("\($0)\(round)") })
        }
    }

    /// An empty text binds as an empty text, not as NULL.
    @Test func anEmptyTextIsNotNull() throws {
        let arena = TextArena()
        let database = try DatabaseQueue()
        let type: Int32 = try database.read { db in
            let statement = try db.makeStatement(sql: "SELECT typeof(?1)")
            let handle = statement.sqliteStatement
            arena.bind("", to: handle, at: 1)
            defer { sqlite3_reset(handle); sqlite3_clear_bindings(handle) }
            guard sqlite3_step(handle) == SQLITE_ROW else { return -1 }
            return sqlite3_column_bytes(handle, 0) == 4 ? 1 : 0   // "text"
        }
        #expect(type == 1)
    }

    /// Inserts and then updates rows whose two text columns take every size above, in one save
    /// each, and reads them back with a new coordinator.
    @Test func savedTextsReadBackAsWritten() async throws {
        let dir = TemporaryDirectory()
        let texts = Self.texts
        let updated = texts.reversed().map { "\($0)·" }
        do {
            let (coordinator, context) = try await openSamples(dir.file())
            try await context.perform {
                for (i, text) in texts.enumerated() {
                    let sample = context.insert(Sample.self)
                    sample.name = String(format: "s%02d", i) + text   // a unique text as long as the other
                    sample.text = text
                }
                try context.save()
                let samples = try context.fetch(FetchRequest<Sample>(sortKeys: [SortKey("name")]))
                for (sample, text) in zip(samples, updated) { sample.text = text }   // one shape: the same columns every row
                try context.save()
            }
            try coordinator.close()
        }
        let (coordinator, context) = try await openSamples(dir.file())
        try await context.perform {
            let samples = try context.fetch(FetchRequest<Sample>(sortKeys: [SortKey("name")]))
            #expect(samples.map { Self.summary($0.text) } == updated.map(Self.summary))
            #expect(samples.map(\.text) == updated)
            #expect(samples.enumerated().allSatisfy { i, sample in sample.name == String(format: "s%02d", i) + texts[i] })
        }
        try coordinator.close()
    }
}

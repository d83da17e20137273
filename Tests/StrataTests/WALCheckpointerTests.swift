import Foundation
import GRDB
import Testing
@testable import Strata

/// A store's write-ahead-log checkpoints run on the checkpointer's queue, not inside the
/// commit that crosses SQLite's threshold (which, for a main-queue root context, is a save on
/// the main queue); a checkpointer that cannot run leaves the committing connection to
/// checkpoint itself at the ceiling.
@Suite struct WALCheckpointerTests {
    /// Saves of about 1 000 log pages in all: the commits report the log's size to the
    /// checkpointer (its hook replaced SQLite's automatic checkpoint), a background checkpoint
    /// runs, and the next save starts the log over.
    @Test func aLogPastTheThresholdIsCheckpointedInTheBackgroundAndStartsOver() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let checkpointer = try #require(coordinator.checkpointer)
        let body = String(repeating: "x", count: 3_000)
        var saves = 0
        while checkpointer.logPages.load(ordering: .relaxed) < WALCheckpointer.threshold, saves < 2_000 {
            let save = saves
            try await context.perform {
                for i in 0..<20 { context.insert(Note.self).title = "\(save)-\(i) \(body)" }
                try context.save()
            }
            saves += 1
        }
        #expect(checkpointer.logPages.load(ordering: .relaxed) >= WALCheckpointer.threshold, "the commits never reported the log's size")
        let deadline = ContinuousClock.now + .seconds(20)
        while checkpointer.checkpoints.load(ordering: .relaxed) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(checkpointer.checkpoints.load(ordering: .relaxed) >= 1, "no background checkpoint ran")
        try await context.perform {
            context.insert(Note.self).title = "after"
            try context.save()
        }
        #expect(checkpointer.logPages.load(ordering: .relaxed) < WALCheckpointer.threshold, "the log did not start over after the checkpoint")
        let count = try await context.perform { try context.count(for: FetchRequest<Note>()) }
        #expect(count == saves * 20 + 1)
        try coordinator.close()
    }

    /// A stream of small saves past the threshold: a background checkpoint starts only after
    /// another ``WALCheckpointer/threshold`` pages (or after the log started over), not after
    /// every commit while the last one lags behind (which ran one for every three or four
    /// one-row saves, each scanning the log's index and syncing the file).
    @Test func smallSavesPastTheThresholdStartACheckpointPerThresholdOfNewPages() async throws {
        let dir = TemporaryDirectory()
        let (coordinator, context) = try await makeStore(dir)
        let checkpointer = try #require(coordinator.checkpointer)
        var appended = 0
        var last: Int32 = 0
        for save in 0..<3_000 {
            try await context.perform {
                context.insert(Note.self).title = "\(save)"
                try context.save()
            }
            let pages = checkpointer.logPages.load(ordering: .relaxed)
            appended += Int(pages >= last ? pages - last : pages)   // smaller: the log started over
            last = pages
        }
        try await Task.sleep(for: .milliseconds(200))   // let a checkpoint under way finish counting
        let started = checkpointer.checkpoints.load(ordering: .relaxed)
        #expect(appended >= 2 * Int(WALCheckpointer.threshold), "the saves appended too few pages to test: \(appended)")
        #expect(started >= 1, "no background checkpoint ran")
        #expect(started <= appended / Int(WALCheckpointer.threshold) + 1,
                "\(started) checkpoints for \(appended) pages appended")
        try coordinator.close()
    }

    /// A checkpointer whose connection cannot open: no background checkpoint, and the log never
    /// grows past the ceiling by more than one commit.
    @Test func aCheckpointerThatCannotRunLeavesTheLogBoundedByTheCeiling() throws {
        let dir = TemporaryDirectory()
        let checkpointer = WALCheckpointer(path: dir.file("missing/folder/store.sqlite").path, busyTimeout: 1)
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = OFF")
            checkpointer.install(db)
        }
        let pool = try DatabasePool(path: dir.file("bounded.sqlite").path, configuration: configuration)
        try pool.write { db in try db.execute(sql: "CREATE TABLE blob (id INTEGER PRIMARY KEY, data BLOB)") }
        let blob = Data(repeating: 7, count: 40_000)   // about 10 pages a commit
        var largest: Int32 = 0
        for _ in 0..<1_500 {
            try pool.write { db in try db.execute(sql: "INSERT INTO blob (data) VALUES (?)", arguments: [blob]) }
            largest = max(largest, checkpointer.logPages.load(ordering: .relaxed))
        }
        #expect(largest >= WALCheckpointer.ceiling, "the test never reached the ceiling")
        #expect(largest < WALCheckpointer.ceiling + 100, "the log grew past the ceiling: \(largest) pages")
        #expect(checkpointer.checkpoints.load(ordering: .relaxed) == 0)
        try pool.close()
    }
}

import Foundation
import GRDB
import Testing
@testable import Strata

/// A full disk (issue 12, "Proof under faults"), simulated with SQLite's `max_page_count` on
/// the coordinator's writer connection: SQLite then fails a write that needs a new page with
/// `SQLITE_FULL`, as on a full disk. Every write path gives `.storeFull`, writes nothing,
/// leaves the store intact, and works again once there is room.
@Suite struct DiskFullTests {
    /// Caps the store at its current size (nothing can grow), or lifts the cap.
    static func limitPages(_ coordinator: StoreCoordinator, full: Bool) async throws {
        try await coordinator.database.writeWithoutTransaction { db in
            let count = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(full ? count : 1_073_741_823)")
        }
    }

    /// Integrity, items and history transactions of the store, read with plain SQLite.
    static func census(_ url: URL) throws -> (integrity: [String], items: Int, history: Int) {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { db in
            (try String.fetchAll(db, sql: "PRAGMA integrity_check"),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Item") ?? -1,
             try db.tableExists("_strata_history") ? Int.fetchOne(db, sql: "SELECT COUNT(*) FROM _strata_history") ?? -1 : 0)
        }
    }

    @Test func aSaveWithRelationshipsAndHistoryOnAFullDiskKeepsItsChangesAndSavesOnceThereIsRoom() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        var options = StoreOptions()
        options.recordsHistory = true
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: 1), store: .sqlite(url, options: options))
        let context = ObjectContext(.privateQueue, coordinator: coordinator)
        let first = try await context.perform { () throws -> String in
            let owner = try context.insert(entityNamed: "Owner")
            try owner.setValue("first", forKey: "name")
            try context.save()
            return try CrashState.read(context).digest
        }
        try await Self.limitPages(coordinator, full: true)
        let (code, pendingDigest) = try await context.perform { () throws -> (StrataError.Code?, String) in
            let owner = try context.insert(entityNamed: "Owner")
            try owner.setValue("big", forKey: "name")
            let tag = try context.insert(entityNamed: "Tag")
            try tag.setValue("t", forKey: "label")
            for i in 0..<300 {
                let item = try context.insert(entityNamed: "Item")
                try item.setValue("item-\(i)-" + String(repeating: "y", count: 300), forKey: "name")
                try item.setValue(owner, forKey: "owner")
                try item.setValue(Set([tag]), forKey: "tags")
            }
            var code: StrataError.Code?
            do { try context.save() } catch let error as StrataError { code = error.code }
            #expect(context.hasChanges)
            #expect(context.insertedObjects.count == 302)
            return (code, try CrashState.read(context).digest)  // the fetch includes the unsaved objects
        }
        #expect(code == .storeFull)
        let afterFailure = try Self.census(url)
        #expect(afterFailure.integrity == ["ok"])
        #expect(afterFailure.items == 0)
        #expect(afterFailure.history == 1)
        #expect(try coordinator.history(after: nil).count == 1)

        try await Self.limitPages(coordinator, full: false)
        let saved = try await context.perform { () throws -> String in
            try context.save()
            context.reset()
            return try CrashState.read(context).digest
        }
        #expect(saved == pendingDigest)
        #expect(saved != first)
        try coordinator.close()
        let afterRetry = try Self.census(url)
        #expect(afterRetry.integrity == ["ok"])
        #expect(afterRetry.items == 300)
        #expect(afterRetry.history == 2)
    }

    @Test func batchRequestsOnAFullDiskAreStoreFullAndWriteNothing() async throws {
        let directory = TemporaryDirectory()
        let url = directory.file()
        let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: 1), store: .sqlite(url))
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: (0..<20).map { ["name": .string("seed-\($0)"), "value": .integer(1)] }))
        try await Self.limitPages(coordinator, full: true)
        let rows: [[String: PropertyValue]] = (0..<500).map { ["name": .string("bulk-\($0)-" + String(repeating: "z", count: 200)), "value": .integer(2)] }
        #expect(throws: StrataError.self) { _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: rows)) }
        do { _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: rows)) }
        catch { #expect(error.code == .storeFull, "\(error)") }
        #expect(try Self.census(url).items == 20)
        #expect(try Self.census(url).integrity == ["ok"])

        try await Self.limitPages(coordinator, full: false)
        _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: rows))
        try coordinator.close()
        #expect(try Self.census(url).items == 520)
    }
}

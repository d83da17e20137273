import Foundation
import GRDB
import Testing
@testable import Strata

/// A migration of entity hierarchies killed at each of its steps leaves the old store or the
/// new one, never a mix (issue 13): `MigrationStepKillTests`' method with
/// ``HierarchyCrashModel``, whose version 2 rebuilds a hierarchy's table (renaming, removing
/// and adding subentities, filling a default, renaming a column) and turns a plain table into a
/// hierarchy's. The child is `StrataProcessProbe open-hierarchy`.
@Suite(.serialized) struct MigrationHierarchyKillTests {
    static let attachmentCount = 300

    struct Census: Equatable {
        /// 1 or 2 when the hash, the tables' columns and the rows' entities all say that
        /// version; -1 for a mix.
        var version: Int
        var attachments: Int
        var sizes: Int64
        var widths: Int64
        var owners: Int
        var integrity: [String]
        var danglingKeys: Int
    }

    static func census(_ url: URL) async throws -> Census {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: url.path, configuration: configuration)
        defer { try? queue.close() }
        let v1 = try HierarchyCrashModel.make(version: 1).versionHash, v2 = try HierarchyCrashModel.make(version: 2).versionHash
        return try await queue.read { db in
            let hash = try String.fetchOne(db, sql: "SELECT value FROM _strata_metadata WHERE key = 'modelHash'")
            let columns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Attachment')"))
            let ownerColumns = Set(try String.fetchAll(db, sql: "SELECT name FROM pragma_table_info('Owner')"))
            let kinds = Set(try String.fetchAll(db, sql: "SELECT DISTINCT _entity FROM Attachment"))
            let isV1 = hash == v1 && columns.contains("width") && !columns.contains("rating") && !ownerColumns.contains("_entity")
                && kinds == ["Photo", "Video", "Clip"]
            let unrated = columns.contains("rating") ? try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Attachment WHERE rating IS NOT 3") : nil
            let isV2 = hash == v2 && columns.contains("pixels") && unrated == 0 && ownerColumns.contains("_entity")
                && kinds == ["Photo", "Movie"]
            let widths = try Int64.fetchOne(db, sql: "SELECT COALESCE(SUM(\(isV2 ? "pixels" : "width")), 0) FROM Attachment") ?? -1
            let row = try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(SUM(size), 0) FROM Attachment")
            return Census(version: isV1 ? 1 : isV2 ? 2 : -1, attachments: row?[0] ?? -1, sizes: row?[1] ?? -1, widths: widths,
                          owners: try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM Owner") ?? -1,
                          integrity: try String.fetchAll(db, sql: "PRAGMA integrity_check"),
                          danglingKeys: try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count)
        }
    }

    @Test func aHierarchyMigrationKilledAtEachStepLeavesTheOldStoreOrTheNewOne() async throws {
        let directory = TemporaryDirectory()
        let template = directory.file("template.sqlite"), work = directory.file("work.sqlite")
        do {
            let coordinator = try await StoreCoordinator(model: try HierarchyCrashModel.make(version: 1), store: .sqlite(template))
            let context = ObjectContext(.privateQueue, coordinator: coordinator)
            try await context.perform {
                let owners = try (0..<3).map { i in
                    let owner = try context.insert(entityNamed: "Owner")
                    owner["name"] = "owner-\(i)"
                    return owner
                }
                for i in 0..<Self.attachmentCount {
                    let kind = ["Photo", "Video", "Clip"][i % 3]
                    let attachment = try context.insert(entityNamed: kind)
                    attachment["name"] = "\(kind) \(i)"
                    attachment["size"] = Int64(i)
                    attachment["owner"] = owners[i % owners.count]
                    if kind == "Photo" { attachment["width"] = Int64(i * 10) }
                    if kind == "Clip" { attachment["source"] = "camera" }
                }
                try context.save()
            }
            try coordinator.close()
        }
        let original = try await Self.census(template)
        #expect(original.version == 1 && original.attachments == Self.attachmentCount && original.owners == 3)
        // Version 2 keeps the photos and videos (two thirds), their sizes and the photos' widths.
        let clipSizes = Int64((0..<Self.attachmentCount).filter { $0 % 3 == 2 }.reduce(0, +))
        let migrated = Census(version: 2, attachments: Self.attachmentCount * 2 / 3, sizes: original.sizes - clipSizes, widths: original.widths,
                              owners: 3, integrity: ["ok"], danglingKeys: 0)

        try MigrationCrashTests.copy(template, to: work)
        let listing = try ProbeProcess(["open-hierarchy", work.path, "2"])
        #expect(try await listing.finish() == .exited(0), "\(listing.errors)")
        let steps = listing.lines.filter { $0.hasPrefix("step ") }.map { String($0.dropFirst("step ".count)) }
        #expect(steps.first == "began" && steps.suffix(3) == ["recorded", "committed", "finished"], "\(steps)")
        #expect(steps.filter { $0.hasPrefix("statement-") }.count > 10, "\(steps)")
        #expect(try await Self.census(work) == migrated)

        for step in steps {
            try MigrationCrashTests.copy(template, to: work)
            let child = try ProbeProcess(["open-hierarchy", work.path, "2"], environment: ["STRATA_KILL_AT_MIGRATION_STEP": step])
            let status = try await child.finish()
            #expect(status == .signalled(SIGKILL) && child.lines.last == "step \(step)", "\(step): \(status), \(child.errors)")
            let committed = step == "committed" || step == "finished"
            let after = try await Self.census(work)
            #expect(after == (committed ? migrated : original), "\(step): \(after)")
            // Opening it again finishes the job.
            let reopen = try ProbeProcess(["open-hierarchy", work.path, "2"])
            #expect(try await reopen.finish() == .exited(0), "\(step): \(reopen.errors)")
            #expect(try await Self.census(work) == migrated, "\(step)")
        }
    }
}

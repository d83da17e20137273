import Foundation
import Testing
@testable import Strata

/// A migration killed at each of its steps (issue 12: "a crash at any point of it (test by
/// killing a child process at every step) leaves either the old store or the new one, never a
/// mix"). The child (`StrataProcessProbe open`, which opens a ``CrashModel`` version 1 store
/// with version 2: an attribute with a default added) names each step it reaches, and with
/// `STRATA_KILL_AT_MIGRATION_STEP` kills itself with SIGKILL right there. The steps are listed
/// by a first, uninterrupted migration, so a new step in `StoreMigrator` is covered at once.
/// `MigrationCrashTests` kills at random moments instead, between and inside the steps.
@Suite(.serialized) struct MigrationStepKillTests {
    static let itemCount = 2_000

    @Test func aMigrationKilledAtEachStepLeavesTheOldStoreOrTheNewOne() async throws {
        let directory = TemporaryDirectory()
        let template = directory.file("template.sqlite"), work = directory.file("work.sqlite")
        do {
            let coordinator = try await StoreCoordinator(model: try CrashModel.make(version: 1), store: .sqlite(template))
            let rows: [[String: PropertyValue]] = (0..<Self.itemCount).map { ["name": .string("item-\($0)"), "value": .integer(Int64($0 % 100))] }
            _ = try coordinator.execute(BatchInsertRequest(entityName: "Item", objects: rows))
            try coordinator.close()
        }
        let original = try await MigrationCrashTests.census(template)
        #expect(original.version == 1 && original.items == Self.itemCount)

        // The steps, from a migration that runs to the end.
        try MigrationCrashTests.copy(template, to: work)
        let listing = try ProbeProcess(["open", work.path, "2"])
        #expect(try await listing.finish() == .exited(0), "\(listing.errors)")
        let steps = listing.lines.filter { $0.hasPrefix("step ") }.map { String($0.dropFirst("step ".count)) }
        #expect(steps.first == "began" && steps.dropFirst().first == "backed-up" && steps.suffix(3) == ["recorded", "committed", "finished"], "\(steps)")
        #expect(steps.contains { $0.hasPrefix("statement-") }, "\(steps)")

        let backup = StoreMigrator.backupPath(for: work.path)
        for step in steps {
            try MigrationCrashTests.copy(template, to: work)
            let child = try ProbeProcess(["open", work.path, "2"], environment: ["STRATA_KILL_AT_MIGRATION_STEP": step])
            let status = try await child.finish()
            #expect(status == .signalled(SIGKILL), "\(step): \(status), \(child.errors)")
            #expect(child.lines.last == "step \(step)", "\(step): \(child.lines.suffix(3))")
            let committed = step == "committed" || step == "finished"
            // Killed there, the backup copy is on disk from its making until its removal.
            #expect(FileManager.default.fileExists(atPath: backup) == (step != "began" && step != "finished"), "\(step): backup on disk?")
            let after = try await MigrationCrashTests.census(work)
            #expect(after.integrity == ["ok"], "\(step): \(after.integrity)")
            #expect(after.version == (committed ? 2 : 1), "\(step): version \(after.version) (-1 is a mix)")
            #expect(after.unfilled == 0, "\(step): \(after.unfilled) rows without the new attribute's default")
            #expect(after.items == original.items && after.valueSum == original.valueSum && after.nameLength == original.nameLength,
                    "\(step): the rows changed: \(after) against \(original)")
            // Opening it again finishes the job, and no copy stays behind once it has migrated.
            let reopen = try ProbeProcess(["open", work.path, "2"])
            #expect(try await reopen.finish() == .exited(0), "\(step): \(reopen.errors)")
            let finished = try await MigrationCrashTests.census(work)
            #expect(finished.version == 2 && finished.items == original.items && finished.unfilled == 0, "\(step)")
            if !committed { #expect(!FileManager.default.fileExists(atPath: backup), "\(step): the backup copy stayed after the migration") }
        }
    }
}

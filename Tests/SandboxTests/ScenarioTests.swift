import Foundation
import SandboxKit
import StrataStacks
import Testing

/// Small-N runs of every scenario on every stack: behaviour and output shape, never timings.
/// What a scenario wrote is checked in its store with a connection of the test's own
/// (``ScenarioExpectations``), not only through the scenario's own `check`.
@Suite struct ScenarioTests {
    static let scenarioNames = ScenarioRegistry.names
    static let objects = 200
    static let batch = 50

    static func options(_ scenario: String, _ kind: StackKind, storeDirectory: URL? = nil) -> SandboxOptions {
        var options = SandboxOptions()
        options.objects = objects
        options.batch = batch
        options.scenarios = [scenario]
        options.stacks = [kind]
        options.storeDirectory = storeDirectory
        return options
    }

    /// Runs `scenario` on `kind` with its stores kept in a folder removed afterwards, and hands
    /// the records (whose store files still exist) to `body`.
    static func withKeptStores(_ scenario: String, _ kind: StackKind, _ body: ([RunRecord]) throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-tests-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let records = try await SandboxRunner(options: options(scenario, kind, storeDirectory: folder)).run()
        try body(records)
    }

    @Test(arguments: scenarioNames, StackKind.allCases)
    func scenarioRunsAndLeavesTheExpectedStore(scenario: String, kind: StackKind) async throws {
        try await Self.withKeptStores(scenario, kind) { records in
            let variants = try #require(ScenarioRegistry.scenario(named: scenario)).variants
            #expect(records.map(\.result.variant) == variants.map(\.name))
            let expectations = ScenarioExpectations(data: SourceData(books: Self.objects, seed: SandboxOptions().seed), kind: kind, batch: Self.batch)
            for record in records {
                let result = record.result
                #expect(result.check == "ok", "\(scenario) on \(kind): \(result.check)")
                let problems = try expectations.problems(in: record)
                #expect(problems.isEmpty, "\(scenario)/\(result.variant ?? "-") on \(kind): \(problems.joined(separator: "; "))")
                #expect(result.scenario == scenario)
                #expect(result.stack == (variants.first { $0.name == result.variant }?.usesStack == true ? kind.rawValue : "none"))
                #expect(result.objects == Self.objects)
                #expect(result.objectsPerSecond > 0 && result.objectsPerSecond.isFinite)
                #expect(result.rawObjectsPerSecond > 0 && result.rawObjectsPerSecond.isFinite)
                #expect(result.ratioToRaw > 0 && result.ratioToRaw.isFinite)
                if result.variant == BaselineScenario.rawVariant { #expect(result.ratioToRaw == 1) }
            }
        }
    }

    @Test func importLeavesMainHoldingOnlyTheListInTheHybridStack() async throws {
        let records = try await SandboxRunner(options: Self.options("import", .hybrid)).run()
        let result = try #require(records.first?.result)
        #expect(result.registeredInMain <= 50 + 12 + 1)   // the list's 50 rows and its 12 spare rows past them (a quarter of 50)
        #expect(result.mainQueueWrites == 0)
        // One merge per import save at most: 1 save of authors, 4 of books, 4 of relationships.
        #expect((1...9).contains(result.mergesIntoMain))
    }

    @Test func importThroughMainRegistersEveryObjectInMain() async throws {
        let records = try await SandboxRunner(options: Self.options("import", .mainContext)).run()
        let result = try #require(records.first?.result)
        #expect(result.registeredInMain >= 200)
        #expect(result.mainQueueWrites == 0)   // the stack's save writes off the main queue (`saveInBackground()`)
        // Without `storeDirectory` the runner's temporary folder goes, with every store in it.
        #expect(!FileManager.default.fileExists(atPath: records[0].storeURL.deletingLastPathComponent().path))
    }

    /// The detail names each policy's winner as the merge policies promise for root writers.
    @Test func conflictsReportEveryPolicy() async throws {
        let records = try await SandboxRunner(options: Self.options("conflicts", .hybrid)).run()
        let detail = try #require(records.first?.result.detail)
        #expect(detail.hasPrefix("writers: root contexts; "))
        for part in ["error: title A, rating A", "mergeByPropertyStoreTrump: title A, rating A", "mergeByPropertyObjectTrump: title B, rating A",
                     "overwrite: title B, rating original", "rollback: title A, rating A"] {
            #expect(detail.contains(part), "\(detail)")
        }
        #expect(records.first?.result.counters["conflictErrors"] == 1)
    }
}

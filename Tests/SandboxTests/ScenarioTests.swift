import Foundation
import SandboxKit
import StrataStacks
import Testing

/// Small-N runs of every scenario on every stack: behaviour and output shape, never timings.
@Suite struct ScenarioTests {
    static let scenarioNames = ScenarioRegistry.names

    static func options(_ scenario: String, _ kind: StackKind, objects: Int = 200) -> SandboxOptions {
        var options = SandboxOptions()
        options.objects = objects
        options.batch = 50
        options.scenarios = [scenario]
        options.stacks = [kind]
        return options
    }

    @Test(arguments: scenarioNames, StackKind.allCases)
    func scenarioRunsAndPassesItsCheck(scenario: String, kind: StackKind) async throws {
        let records = try await SandboxRunner(options: Self.options(scenario, kind)).run()
        let expectedRows = ScenarioRegistry.scenario(named: scenario)?.variants.count ?? 0
        #expect(records.count == expectedRows)
        for record in records {
            let result = record.result
            #expect(result.check == "ok", "\(scenario) on \(kind): \(result.check)")
            #expect(result.scenario == scenario)
            #expect(result.stack == kind.rawValue || result.stack == "none")
            #expect(result.objects == 200)
            #expect(result.wallSeconds > 0)
            #expect(result.rawObjectsPerSecond > 0)
            #expect(result.ratioToRaw > 0)
        }
    }

    @Test func importLeavesMainHoldingOnlyTheListInTheHybridStack() async throws {
        let records = try await SandboxRunner(options: Self.options("import", .hybrid)).run()
        let result = try #require(records.first?.result)
        #expect(result.registeredInMain <= 50 + 1)
        #expect(result.mainQueueWrites == 0)
        #expect(result.mergesIntoMain > 0)
    }

    @Test func importThroughMainRegistersEveryObjectInMain() async throws {
        let records = try await SandboxRunner(options: Self.options("import", .mainContext)).run()
        let result = try #require(records.first?.result)
        #expect(result.registeredInMain >= 200)
        #expect(result.mainQueueWrites > 0)
    }

    @Test func pagingCountsMaterialisedRows() async throws {
        let records = try await SandboxRunner(options: Self.options("paging", .asyncSaving)).run()
        let result = try #require(records.first?.result)
        let materialized = try #require(result.counters["rowsMaterialized"])
        #expect(materialized > 0 && materialized <= 150)
    }

    @Test func conflictsReportEveryPolicy() async throws {
        let records = try await SandboxRunner(options: Self.options("conflicts", .hybrid)).run()
        let detail = try #require(records.first?.result.detail)
        for policy in ["error", "mergeByPropertyStoreTrump", "mergeByPropertyObjectTrump", "overwrite", "rollback"] {
            #expect(detail.contains(policy + ":"))
        }
        #expect(records.first?.result.counters["conflictErrors"] == 1)
    }
}

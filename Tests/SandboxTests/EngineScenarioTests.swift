import Foundation
import SandboxKit
import Testing

/// The `engine` scenario: each engine path next to its own raw SQLite counterpart.
@Suite struct EngineScenarioTests {
    @Test func eachVariantIsComparedWithItsOwnRawCounterpart() async throws {
        var options = SandboxOptions()
        options.objects = 300
        options.batch = 100
        options.scenarios = [EngineScenario.name]
        let records = try await SandboxRunner(options: options).run()
        let byVariant = Dictionary(uniqueKeysWithValues: records.map { ($0.result.variant ?? "", $0.result) })
        // Stackless: each variant runs once, whatever stacks are selected.
        #expect(records.count == EngineScenario.variants.count)
        for variant in EngineScenario.variants {
            let name = try #require(variant.name)
            let result = try #require(byVariant[name], "\(name) did not run")
            let baselineName = try #require(variant.baseline)
            let baseline = try #require(byVariant[baselineName])
            #expect(result.check == "ok", "\(name): \(result.check)")
            #expect(result.stack == "none")
            #expect(result.objectsPerSecond.isFinite && result.objectsPerSecond > 0, "\(name)")
            // The ratio divides by the counterpart measured in this run, not by the insert rate.
            #expect(result.rawObjectsPerSecond == baseline.objectsPerSecond, "\(name)")
            #expect(abs(result.ratioToRaw - result.objectsPerSecond / baseline.objectsPerSecond) < 1e-9, "\(name)")
        }
        #expect(byVariant["fetch"]?.rawObjectsPerSecond == byVariant["raw-read"]?.objectsPerSecond)
        #expect(byVariant["raw-read"]?.rawObjectsPerSecond != byVariant["raw-insert"]?.objectsPerSecond)
        // Every variant handled every book (single saves are capped above this run's size).
        #expect(records.allSatisfy { $0.result.objects == 300 })
    }
}

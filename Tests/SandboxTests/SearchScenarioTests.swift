import Foundation
import SandboxKit
import StrataStacks
import Testing

/// The `search` scenario at small N: it runs, each variant types every keystroke, and the
/// counts add up (never timings).
@Suite struct SearchScenarioTests {
    @Test func searchRunsAndItsCountsAddUp() async throws {
        var options = SandboxOptions()
        options.objects = 2_000
        options.scenarios = ["search"]
        options.stacks = [.hybrid]
        let records = try await SandboxRunner(options: options).run()
        #expect(records.map(\.result.variant) == ["contains", "fts", "fts-ranked"])
        let typed = SearchText(seed: SearchScenario.seed).typed
        #expect(typed.contains(" "))
        var shown: [String: [Int]] = [:]
        for record in records {
            let result = record.result
            #expect(result.check == "ok", "\(result.variant ?? "-"): \(result.check)")
            #expect(result.objects == 2_000)
            #expect(result.counters["keystrokes"] == typed.count)
            let perKeystroke = (1...typed.count).map { result.counters["shown\($0)"] ?? -1 }
            #expect(perKeystroke.allSatisfy { $0 >= 0 && $0 <= SearchScenario.shown })
            #expect(perKeystroke.reduce(0, +) == result.counters["shown"])
            #expect(result.detail.contains("p50") && result.detail.contains("max"))
            shown[result.variant ?? ""] = perKeystroke
        }
        let fts = try #require(shown["fts"]), ranked = try #require(shown["fts-ranked"]), contains = try #require(shown["contains"])
        // A word-prefix match contains the typed words: the index never shows more than the scan.
        #expect(zip(fts, contains).allSatisfy { $0 <= $1 })
        #expect(fts == ranked)   // the same matches, in another order
        // The first keystroke (one letter) matches plenty of notes either way.
        #expect(fts.first == SearchScenario.shown)
        let ratio = try #require(records.last?.result.ratioToRaw)
        #expect(ratio > 0 && ratio.isFinite)
    }
}

import Foundation
import SandboxKit
import Testing

/// `--repeat`, `--json-out` and `--compare`: the aggregation of repeats, the stored file, the
/// comparison's arithmetic and its noise marking, and where they are printed.
@Suite struct RunsTests {
    static func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-run-\(UUID().uuidString).json")
    }

    @Test func statsOfOddAndEvenCounts() {
        let odd = FigureStats([12, 10, 11])
        #expect([odd.min, odd.median, odd.max, odd.spread] == [10, 11, 12, 2])
        #expect(odd.noise == 2)
        let even = FigureStats([4, 1, 3, 2])
        #expect(even.median == 2.5)
        #expect(FigureStats([7]).noise == nil)
        #expect(FigureStats([7]).spread == 0)
    }

    @Test func repeatsAggregateByRunInTheFirstPassOrder() throws {
        let passes = [
            [ResultFixture.result("import", stack: "hybrid", rate: 100, maxStallMs: 4), ResultFixture.result("import", stack: "mainContext", rate: 50)],
            [ResultFixture.result("import", stack: "mainContext", rate: 70), ResultFixture.result("import", stack: "hybrid", rate: 130, maxStallMs: 9, check: "lost a book")],
            [ResultFixture.result("import", stack: "hybrid", rate: 120, maxStallMs: 6), ResultFixture.result("import", stack: "mainContext", rate: 60)],
        ]
        let runs = RepeatedResult.aggregate(passes)
        #expect(runs.map(\.key) == ["import on hybrid", "import on mainContext"])
        let hybrid = runs[0]
        #expect(hybrid.repeats.map(\.objectsPerSecond) == [100, 130, 120])
        #expect(hybrid.stats(.objectsPerSecond) == FigureStats([100, 120, 130]))
        #expect(hybrid.result.objectsPerSecond == 120)
        #expect(hybrid.result.stallMaxMs == 6)
        #expect(hybrid.result.wallSeconds == 1000.0 / 120)
        #expect(hybrid.result.check == "lost a book")           // one failed repeat fails the run
        #expect(runs[1].result.objectsPerSecond == 60)
        #expect(runs[1].result.check == "ok")
        #expect(RepeatedResult(repeats: []) == nil)
        // The median run's record is the one drawn, carrying the medians.
        let url = URL(fileURLWithPath: "/dev/null")
        let records = passes.map { $0.map { RunRecord(result: $0, timeline: [], heartbeatSeconds: $0.wallSeconds, storeURL: url) } }
        let chosen = RepeatedResult.medianRecords(records, runs: runs)
        let drawn: [Double] = chosen.map(\.heartbeatSeconds)
        let medianWalls: [Double] = [1000.0 / 120, 1000.0 / 60]
        #expect(drawn == medianWalls)
        #expect(chosen[0].result == hybrid.result)
    }

    @Test func storedRunRoundTripsThroughItsFile() throws {
        let runs = RepeatedResult.aggregate([[ResultFixture.result("engine", variant: "fetch", stack: "none", rate: 1e6)],
                                             [ResultFixture.result("engine", variant: "fetch", stack: "none", rate: 2e6)]])
        let stored = StoredRun(command: "Sandbox --scenario engine --repeat 2", runs: runs, date: Date(timeIntervalSince1970: 1_800_000_000))
        let url = Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url) }
        try stored.write(to: url)
        let read = try StoredRun.read(from: url)
        #expect(read == stored)
        #expect(read.version == StoredRun.currentVersion)
        #expect(read.repeats == 2)
        #expect(read.recorded == "2027-01-15T08:00:00Z")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        #expect(object["format"] as? String == "strata-sandbox-run")
        #expect(object["version"] as? Int == 1)
    }

    /// A real (small) run survives the file unchanged: every figure `--json` prints.
    @Test func aRealRunRoundTrips() async throws {
        let records = try await SandboxRunner(options: ScenarioTests.options("import", .hybrid)).run()
        let runs = RepeatedResult.aggregate([records.map(\.result)])
        let stored = StoredRun(command: "test", runs: runs)
        let read = try StoredRun.decode(try stored.encoded(), name: "memory")
        #expect(read.runs == runs)
        #expect(read.runs.first?.result == records.first?.result)
    }

    @Test func badFilesGiveClearErrors() throws {
        func message(_ text: String) -> String {
            do { _ = try StoredRun.decode(Data(text.utf8), name: "f.json"); return "decoded" } catch { return "\(error)" }
        }
        #expect(message("not json") == "f.json is not a stored Sandbox run (write one with --json-out)")
        #expect(message(#"{"stack": "hybrid"}"#) == "f.json is not a stored Sandbox run (write one with --json-out)")
        #expect(message(#"{"format": "strata-sandbox-run", "version": 2}"#) == "f.json is a stored run of version 2; this Sandbox reads version 1")
        #expect(message(#"{"format": "strata-sandbox-run", "version": 1}"#).hasPrefix("f.json is a damaged stored run"))
        #expect(throws: SandboxError.self) { try StoredRun.read(from: URL(fileURLWithPath: "/nonexistent/run.json")) }
    }

    @Test func changeInPercentAndTheNoiseMarking() {
        // Rates (higher is better): 100 → 110 is +10 %.
        let rate = RunComparison.row(run: "r", figure: .objectsPerSecond, earlier: FigureStats([98, 100, 101]), now: FigureStats([109, 110, 112]))
        #expect(rate.changePercent == 10)
        #expect(rate.noise == 3)                                 // the larger spread: 112 - 109
        #expect(rate.verdict == .better)
        // Within the noise: a 2-unit move with spreads of 5.
        let noisy = RunComparison.row(run: "r", figure: .objectsPerSecond, earlier: FigureStats([95, 100, 100]), now: FigureStats([102, 102, 102]))
        #expect(noisy.verdict == .withinNoise)
        // Times (lower is better): a longer stall beyond the noise is worse.
        let stall = RunComparison.row(run: "r", figure: .stallMaxMs, earlier: FigureStats([4, 5, 6]), now: FigureStats([9, 10, 12]))
        #expect(stall.changePercent == 100)
        #expect(stall.verdict == .worse)
        // One repeat on one side only: the other side's spread is the noise.
        let oneSided = RunComparison.row(run: "r", figure: .wallSeconds, earlier: FigureStats([2, 2.2]), now: FigureStats([1.5]))
        #expect(oneSided.noise.map { abs($0 - 0.2) < 1e-12 } == true)
        #expect(oneSided.verdict == .better)
        // No repeats anywhere: a change cannot be judged.
        let single = RunComparison.row(run: "r", figure: .wallSeconds, earlier: FigureStats([2]), now: FigureStats([3]))
        #expect(single.noise == nil)
        #expect(single.changePercent == 50)
        #expect(single.verdict == .unmeasured)
        // From zero: no percentage.
        let fromZero = RunComparison.row(run: "r", figure: .stallsOver16Ms, earlier: FigureStats([0, 0]), now: FigureStats([2, 2]))
        #expect(fromZero.changePercent == nil)
        #expect(fromZero.verdict == .worse)
        let zeroes = RunComparison.row(run: "r", figure: .stallsOver16Ms, earlier: FigureStats([0]), now: FigureStats([0]))
        #expect(zeroes.changePercent == 0)
        #expect(zeroes.verdict == .withinNoise)
    }

    @Test func comparisonMatchesRunsAndRendersEachFigure() throws {
        let earlier = StoredRun(command: "Sandbox --repeat 3", runs: RepeatedResult.aggregate([
            [ResultFixture.result("import", stack: "hybrid", rate: 100), ResultFixture.result("paging", stack: "hybrid")],
            [ResultFixture.result("import", stack: "hybrid", rate: 102), ResultFixture.result("paging", stack: "hybrid")],
        ]))
        let now = RepeatedResult.aggregate([
            [ResultFixture.result("import", stack: "hybrid", rate: 80), ResultFixture.result("editor", stack: "hybrid", objects: 5)],
            [ResultFixture.result("import", stack: "hybrid", rate: 80), ResultFixture.result("editor", stack: "hybrid", objects: 5)],
        ])
        let comparison = RunComparison(earlier: earlier, now: now)
        #expect(comparison.rows.count == Figure.allCases.count)
        #expect(comparison.onlyEarlier == ["paging on hybrid"])
        #expect(comparison.onlyNow == ["editor on hybrid"])
        let rate = try #require(comparison.rows.first { $0.figure == .objectsPerSecond })
        #expect(rate.earlier.median == 101 && rate.now.median == 80)
        #expect(rate.verdict == .worse)
        let text = comparison.render()
        #expect(text.hasPrefix("compared with Sandbox --repeat 3 (recorded "))
        #expect(text.contains("objects/s") && text.contains("-20.8 %") && text.contains("WORSE"))
        #expect(text.contains("only in the stored run: paging on hybrid"))
        let html = HTMLReport(records: [], command: "Sandbox", comparison: comparison).render()
        #expect(html.contains("<h2>Compared with an earlier run</h2>"))
        #expect(html.contains(#"<td class="worse">WORSE</td>"#))
    }

    @Test func repeatTableShowsMinMedianMax() throws {
        let runs = RepeatedResult.aggregate([[ResultFixture.result("import", stack: "hybrid", rate: 100)],
                                             [ResultFixture.result("import", stack: "hybrid", rate: 300)],
                                             [ResultFixture.result("import", stack: "hybrid", rate: 200)]])
        let rows = RepeatTable(runs).rows()
        #expect(rows.count == 1)
        #expect(rows[0][0] == "import on hybrid" && rows[0][1] == "3")
        let column = try #require(RepeatTable.headings.firstIndex(of: "objects/s"))
        #expect(rows[0][column] == "100 / 200 / 300")
        let html = HTMLReport(records: [], command: "Sandbox", runs: runs).render()
        #expect(html.contains("<h2>Repeats: min / median / max</h2>") && html.contains("100 / 200 / 300"))
    }
}

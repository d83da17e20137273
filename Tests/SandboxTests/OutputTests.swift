import Dispatch
import Foundation
import SandboxKit
import StrataStacks
import Testing

/// The JSON keys, the table and the HTML report.
@Suite struct OutputTests {
    static let requiredKeys = ["stack", "scenario", "objects", "wallSeconds", "objectsPerSecond", "ratioToRaw", "mainBusySeconds",
                               "stallP99Ms", "stallMaxMs", "stallsOver100Ms", "peakRSSBytes", "registeredInMain"]

    static func defaultRunInMiniature() async throws -> [RunRecord] {
        var options = SandboxOptions()
        options.objects = 200
        options.batch = 50
        return try await SandboxRunner(options: options).run()
    }

    @Test func defaultRunHasBaselinesThenImportOnEveryStack() async throws {
        let records = try await Self.defaultRunInMiniature()
        let labels = records.map { "\($0.result.scenario)/\($0.result.variant ?? "-")/\($0.result.stack)" }
        #expect(labels == [
            "baseline/raw-sqlite/none", "baseline/grdb-statement/none",
            "baseline/batch-insert/mainContext", "baseline/batch-insert/asyncSaving", "baseline/batch-insert/hybrid",
            "import/-/mainContext", "import/-/asyncSaving", "import/-/hybrid",
        ])
        #expect(records.first?.result.ratioToRaw == 1)
    }

    @Test func jsonLinesCarryTheRequiredKeys() async throws {
        let records = try await Self.defaultRunInMiniature()
        let lines = try JSONLines.lines(records.map(\.result))
        #expect(lines.count == records.count)
        for line in lines {
            #expect(!line.contains("\n"))
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for key in Self.requiredKeys { #expect(object[key] != nil, "missing \(key)") }
        }
    }

    @Test func tableAndReportRender() async throws {
        let records = try await Self.defaultRunInMiniature()
        let table = ComparisonTable(records.map(\.result)).render()
        #expect(table.split(separator: "\n").count == records.count + 1)
        #expect(table.hasPrefix("scenario"))
        let html = HTMLReport(records: records, command: "Sandbox --objects 200").render()
        #expect(html.hasPrefix("<!DOCTYPE html>"))
        // A stall timeline per run, and bars for the two scenario rows run on stacks
        // (baseline/batch-insert and import).
        #expect(html.components(separatedBy: "<svg").count - 1 == records.count + 2)
        #expect(html.components(separatedBy: #"class="stack-bars""#).count - 1 == 2)
        #expect(!html.contains("http://") || html.contains("http://www.w3.org/2000/svg"))
        #expect(!html.contains("https://"))
    }

    /// A real 40 ms block of the main queue is seen by a real heartbeat. The block is the thing
    /// measured, so it stays a timed busy loop (on the heartbeat's own clock); the only bounds are
    /// lower bounds that cannot flake: no beat can fire during the block, so the beat after it
    /// comes at least 40 ms after the one before it, i.e. at least 39 ms late with a 1 ms interval
    /// (a loaded machine only makes it later). Beats are awaited, not slept for.
    // The limit only guards against a hang: in a full parallel run, other suites keep the main
    // queue busy, and on a loaded 2-core machine the beat after the block came 167 s later.
    @Test(.timeLimit(.minutes(5))) func heartbeatRecordsStallsOnTheMainQueue() async throws {
        let beats = BeatSignal()
        let heartbeat = Heartbeat(onBeat: beats.beat)
        heartbeat.start()
        await beats.wait(forBeat: 1)                       // beating: the block comes after a beat
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async {
                let start = DispatchTime.now().uptimeNanoseconds
                while DispatchTime.now().uptimeNanoseconds - start < 40_000_000 {}   // block the main queue for 40 ms
                done.resume()
            }
        }
        await beats.wait(forBeat: beats.count + 1)         // a beat after the block has been recorded
        let summary = heartbeat.stop()
        #expect(summary.beats >= 2)
        #expect(summary.maxMs >= 39)
        #expect(summary.over16Ms >= 1)
        #expect(summary.timeline.contains { $0.latenessMs >= 39 })
    }
}

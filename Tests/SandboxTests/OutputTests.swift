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
        #expect(html.components(separatedBy: "<svg").count - 1 == records.count)
        #expect(!html.contains("http://") || html.contains("http://www.w3.org/2000/svg"))
        #expect(!html.contains("https://"))
    }

    @Test func heartbeatRecordsStallsOnTheMainQueue() async throws {
        let heartbeat = Heartbeat()
        heartbeat.start()
        try await Task.sleep(for: .milliseconds(30))
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async {
                let start = ContinuousClock.now
                while ContinuousClock.now - start < .milliseconds(40) {}   // block the main queue
                done.resume()
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        let summary = heartbeat.stop()
        #expect(summary.beats > 0)
        #expect(summary.maxMs >= 30)
        #expect(summary.over16Ms >= 1)
        #expect(!summary.timeline.isEmpty)
    }
}

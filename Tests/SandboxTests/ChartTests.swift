import Foundation
import SandboxKit
import Testing

/// The report's per-scenario bars: one bar per stack and panel with its value, the stacks'
/// colours, the log-scaled stall panel's 16.7 ms frame line, and the verdict.
@Suite struct ChartTests {
    static let results = [
        ResultFixture.result("import", stack: "mainContext", rate: 30_000, ratio: 0.041, busyShare: 0.62, maxStallMs: 27.2, peakMB: 204.6),
        ResultFixture.result("import", stack: "asyncSaving", rate: 18_000, ratio: 0.025, busyShare: 0.69, maxStallMs: 31.1, peakMB: 325.0),
        ResultFixture.result("import", stack: "hybrid", rate: 51_000, ratio: 0.069, busyShare: 0.067, maxStallMs: 14.1, peakMB: 133.6),
    ]

    /// The `<rect class="bar" …>` elements of `svg`, as attribute dictionaries.
    static func bars(_ svg: String) -> [[String: String]] {
        svg.components(separatedBy: "\n").filter { $0.hasPrefix(#"<rect class="bar""#) }.map { line in
            var attributes: [String: String] = [:]
            let pattern = try! NSRegularExpression(pattern: #"([a-z-]+)="([^"]*)""#)   // a literal pattern: cannot fail
            for match in pattern.matches(in: line, range: NSRange(line.startIndex..., in: line)) {
                let name = String(line[Range(match.range(at: 1), in: line)!]), value = String(line[Range(match.range(at: 2), in: line)!])
                attributes[name] = value
            }
            return attributes
        }
    }

    @Test func everyStackHasABarPerPanelWithItsValueAndColour() throws {
        let svg = StackBarsSVG(title: "import", results: Self.results).render()
        #expect(svg.hasPrefix("<svg ") && svg.hasSuffix("</svg>"))
        #expect(svg.contains(#"viewBox="0 0 800 180" width="100%""#))   // scales down in a narrow window
        let bars = Self.bars(svg)
        #expect(bars.count == 3 * StackBarsSVG.Panel.allCases.count)
        func bar(_ stack: String, _ panel: StackBarsSVG.Panel) -> [String: String]? {
            bars.first { $0["data-stack"] == stack && $0["data-panel"] == panel.rawValue }
        }
        #expect(bar("hybrid", .ratioToRaw)?["data-value"] == "0.069")
        #expect(bar("mainContext", .mainBusyPercent)?["data-value"] == "62.0")
        #expect(bar("asyncSaving", .stallMaxMs)?["data-value"] == "31.1")
        #expect(bar("asyncSaving", .peakRSSMB)?["data-value"] == "325.0")
        for stack in ["mainContext", "asyncSaving", "hybrid"] {
            #expect(bars.filter { $0["data-stack"] == stack }.allSatisfy { $0["fill"] == StackColors.color(of: stack) })
        }
        #expect(Set(["mainContext", "asyncSaving", "hybrid"].map(StackColors.color(of:))).count == 3)
        // Linear panels: the largest value fills the plot, the others in proportion.
        let tallest = try #require(bar("asyncSaving", .peakRSSMB)?["height"].flatMap(Double.init))
        let hybridRSS = try #require(bar("hybrid", .peakRSSMB)?["height"].flatMap(Double.init))
        #expect(abs(hybridRSS / tallest - 133.6 / 325.0) < 0.01)
    }

    @Test func stallPanelIsLogScaledWithTheFrameLine() throws {
        let svg = StackBarsSVG(title: "import", results: Self.results).render()
        let line = try #require(svg.components(separatedBy: "\n").first { $0.hasPrefix(#"<line class="frame-line""#) })
        #expect(line.contains(#"data-ms="16.7""#))
        #expect(svg.contains("16.7 ms frame"))
        // 0.1 ms to 1 s is four decades: 16.7 ms sits at log10(167) / 4 of the plot's 116 px.
        let plot = 180.0 - 34 - 30
        let frameY = 180.0 - 30 - log10(167) / 4 * plot
        #expect(line.contains(String(format: #"y1="%.1f""#, frameY)))
        // The hybrid stack's 14.1 ms bar ends below the line, the others above it.
        let bars = Self.bars(svg).filter { $0["data-panel"] == "stallMaxMs" }
        let tops = Dictionary(uniqueKeysWithValues: bars.map { ($0["data-stack"]!, Double($0["y"]!)!) })
        #expect(tops["hybrid"]! > frameY)
        #expect(tops["mainContext"]! < frameY && tops["asyncSaving"]! < frameY)
    }

    @Test func verdictNamesTheFreestAndTheFastest() {
        let text = StackVerdict(Self.results).text
        #expect(text == "hybrid keeps the UI freest (max stall 14.1 ms, no missed frame; asyncSaving 31.1 ms); hybrid is fastest (51000 objects/s, 2.8× asyncSaving)")
        #expect(StackVerdict([Self.results[0]]).text.isEmpty)
    }

    @Test func reportOpensWithTheChartsAndColoursTheStacks() {
        let url = URL(fileURLWithPath: "/dev/null")
        let records = ([ResultFixture.result("baseline", variant: "raw-sqlite", stack: "none")] + Self.results).map {
            RunRecord(result: $0, timeline: [], heartbeatSeconds: 1, storeURL: url)
        }
        let html = HTMLReport(records: records, command: "Sandbox").render()
        let chart = html.range(of: #"class="stack-bars""#), table = html.range(of: "<h2>All runs</h2>")
        #expect(chart != nil && table != nil && chart!.lowerBound < table!.lowerBound)
        #expect(html.components(separatedBy: #"class="stack-bars""#).count - 1 == 1)   // the baseline's stackless row has none
        #expect(html.contains(#"<p class="verdict">hybrid keeps the UI freest"#))
        #expect(html.contains(#"<td class="text stack-hybrid">hybrid</td>"#))
        #expect(html.contains(".stack-hybrid { color: \(StackColors.color(of: "hybrid"))"))
        #expect(!html.contains("https://"))
    }

    /// The wide tables stay readable in a narrow window: each is in a box that scrolls sideways
    /// (not cut off at the window's edge), headings wrap, and a run's name may break after `/`.
    /// scripts/report-screenshot.sh measures the layout in Chromium.
    @Test func wideTablesScrollInTheirBoxAndWrap() throws {
        let url = URL(fileURLWithPath: "/dev/null")
        let records = ([ResultFixture.result("baseline", variant: "raw-sqlite", stack: "none")] + Self.results).map {
            RunRecord(result: $0, timeline: [], heartbeatSeconds: 1, storeURL: url)
        }
        let runs = RepeatedResult.aggregate([records.map(\.result), records.map(\.result)])
        let html = HTMLReport(records: records, command: "Sandbox", runs: runs).render()
        #expect(html.contains("<h2>All runs</h2>\n<div class=\"wide\"><table>"))
        #expect(html.components(separatedBy: "<table>").count == html.components(separatedBy: "<div class=\"wide\"><table>").count)
        #expect(html.components(separatedBy: "<table>").count - 1 == 2)   // all runs, repeats
        #expect(html.components(separatedBy: "</table></div>").count - 1 == 2)
        #expect(html.contains(".wide { overflow-x: auto; max-width: 100%; }"))
        #expect(html.contains("white-space: normal"))
        #expect(html.contains("<td class=\"text\">baseline/<wbr>raw-sqlite</td>"))
    }
}

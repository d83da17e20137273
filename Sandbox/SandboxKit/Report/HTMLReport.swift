public import Foundation

/// `--report FILE.html`: one self-contained page (inline CSS and SVG, nothing fetched) with
/// the comparison table (its headings wrap; a table wider than the window scrolls sideways
/// inside the page, its first column kept in view), the spread of the repeats (`--repeat`), the comparison with a stored
/// run (`--compare`) and, per run, a timeline of main-queue stalls.
///
/// For example:
/// ```swift
/// try HTMLReport(records: records, command: "Sandbox --objects 1000").write(to: url)
/// ```
public struct HTMLReport: Sendable {
    /// The runs.
    public let records: [RunRecord]
    /// The command line that produced them.
    public let command: String
    /// The repeats of each run, for the min / median / max table (empty: not shown).
    public let runs: [RepeatedResult]
    /// The comparison with a stored run, if any.
    public let comparison: RunComparison?

    /// A report of `records`, with the spread of `runs`' repeats and `comparison` when given.
    public init(records: [RunRecord], command: String, runs: [RepeatedResult] = [], comparison: RunComparison? = nil) {
        self.records = records
        self.command = command
        self.runs = runs
        self.comparison = comparison
    }

    /// The page.
    public func render() -> String {
        let table = ComparisonTable(records.map(\.result))
        var html = """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Strata Sandbox report</title>
        <style>
        body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
        table { border-collapse: collapse; font-size: 12px; }
        th, td { border: 1px solid #ddd; padding: 3px 3px; text-align: right; white-space: nowrap; }
        th { background: #f0f0f0; white-space: normal; vertical-align: bottom; }
        td.text { text-align: left; } td.fail { color: #c00000; font-weight: bold; }
        .wide { overflow-x: auto; max-width: 100%; }
        .wide tr > :first-child { position: sticky; left: 0; background: #fff; } .wide tr > th:first-child { background: #f0f0f0; }
        h2 { font-size: 15px; margin: 22px 0 4px; } code { background: #f4f4f4; padding: 1px 4px; }
        .notes { font-size: 12px; color: #555; }
        .verdict { font-size: 13px; margin: 2px 0 12px; } .legend { font-size: 12px; }
        \(StackColors.css())
        td.better { color: #1a7f37; font-weight: bold; } td.worse { color: #c00000; font-weight: bold; }
        </style></head><body>
        <h1>Strata Sandbox</h1>
        <p><code>\(Self.escape(command))</code></p>
        \(chartSection())
        <h2>All runs</h2>
        <div class="wide"><table><tr>\(ComparisonTable.headings.map { "<th>\(Self.escape($0))</th>" }.joined())</tr>

        """
        for row in table.rows() {
            html += "<tr>" + row.enumerated().map { index, cell in
                let textColumn = index < 2 || index == row.count - 1
                let css = cell == "FAIL" ? " class=\"fail\"" : index == 1 ? " class=\"text stack-\(Self.escape(cell))\"" : textColumn ? " class=\"text\"" : ""
                return "<td\(css)>\(index == 0 ? Self.breakable(cell) : Self.escape(cell))</td>"
            }.joined() + "</tr>\n"
        }
        html += "</table></div>\n<ul class=\"notes\">"
        for note in table.footnotes() { html += "<li>\(Self.escape(note))</li>" }
        html += "</ul>\n"
        html += repeatSection() + comparisonSection()
        html += "<p class=\"notes\">Stalls: how late each 1 ms heartbeat on the main queue fired (only beats ≥ 1 ms late are drawn; log scale).</p>\n"
        for record in records {
            let r = record.result
            let name = r.variant.map { "\(r.scenario)/\($0)" } ?? r.scenario
            let figures = ": max \(ComparisonTable.format(r.stallMaxMs, 1)) ms, \(r.stallsOver100Ms) stalls ≥ 100 ms, main busy \(ComparisonTable.format(r.mainBusyShare * 100, 2)) %"
            html += "<h2>\(Self.escape(name)) on <span class=\"stack-\(Self.escape(r.stack))\">\(Self.escape(r.stack))</span>\(Self.escape(figures))</h2>\n"
                + StallTimelineSVG(record: record).render() + "\n"
        }
        html += "</body></html>\n"
        return html
    }

    /// Writes the page to `url`.
    public func write(to url: URL) throws {
        try Data(render().utf8).write(to: url)
    }

    /// `text` escaped, with a line-break opportunity after each `/` (a run's name wraps as
    /// `baseline/` `grdb-statement` in a narrow column; browsers already break after `-`).
    static func breakable(_ text: String) -> String {
        escape(text).replacingOccurrences(of: "/", with: "/<wbr>")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

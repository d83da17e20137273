extension HTMLReport {
    /// The min / median / max table of `--repeat`, or nothing.
    func repeatSection() -> String {
        guard !runs.isEmpty else { return "" }
        return "<h2>Repeats: min / median / max</h2>\n" + Self.table(RepeatTable.headings, RepeatTable(runs).rows(), textColumns: [0])
    }

    /// The `--compare` table, its changes marked, or nothing.
    func comparisonSection() -> String {
        guard let comparison else { return "" }
        let earlier = comparison.earlier
        var html = "<h2>Compared with an earlier run</h2>\n<p class=\"notes\"><code>\(Self.escape(earlier.command))</code>, recorded \(Self.escape(earlier.recorded)), \(earlier.repeats) repeat(s)</p>\n"
        html += Self.table(RunComparison.headings, comparison.cells(), textColumns: [0, 1]) { cell in
            cell == "better" ? "better" : cell == "WORSE" ? "worse" : nil
        }
        html += "<ul class=\"notes\">" + comparison.notes().map { "<li>\(Self.escape($0))</li>" }.joined() + "</ul>\n"
        return html
    }

    /// An HTML table; `cssClass` may give a cell a class of its own.
    static func table(_ headings: [String], _ rows: [[String]], textColumns: Set<Int>, cssClass: (String) -> String? = { _ in nil }) -> String {
        var html = "<table><tr>" + headings.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
        for row in rows {
            html += "<tr>" + row.enumerated().map { index, cell in
                let css = cssClass(cell) ?? (textColumns.contains(index) ? "text" : nil)
                return "<td\(css.map { " class=\"\($0)\"" } ?? "")>\(escape(cell))</td>"
            }.joined() + "</tr>\n"
        }
        return html + "</table>\n"
    }
}

extension HTMLReport {
    /// Per scenario run on stacks, grouped bars of the stacks and a one-line verdict, under a
    /// legend of the stacks' colours; nothing when no run used a stack.
    func chartSection() -> String {
        var order: [String] = []
        var groups: [String: [RunResult]] = [:]
        for result in records.map(\.result) where result.stack != "none" {
            let title = result.variant.map { "\(result.scenario)/\($0)" } ?? result.scenario
            if groups[title] == nil { order.append(title) }
            groups[title, default: []].append(result)
        }
        guard !order.isEmpty else { return "" }
        let stacks = Array(Set(groups.values.joined().map(\.stack))).sorted()
        var html = "<p class=\"legend\">" + stacks.map { "<span class=\"swatch-\($0)\"></span>\(Self.escape($0))" }.joined() + "</p>\n"
        for title in order {
            let results = groups[title] ?? []
            html += "<h2>\(Self.escape(title))</h2>\n" + StackBarsSVG(title: title, results: results).render() + "\n"
            let verdict = StackVerdict(results).text
            if !verdict.isEmpty { html += "<p class=\"verdict\">\(Self.escape(verdict))</p>\n" }
        }
        return html
    }

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

    /// An HTML table in a `wide` box (it scrolls sideways when wider than the window);
    /// `cssClass` may give a cell a class of its own.
    static func table(_ headings: [String], _ rows: [[String]], textColumns: Set<Int>, cssClass: (String) -> String? = { _ in nil }) -> String {
        var html = "<div class=\"wide\"><table><tr>" + headings.map { "<th>\(escape($0))</th>" }.joined() + "</tr>\n"
        for row in rows {
            html += "<tr>" + row.enumerated().map { index, cell in
                let css = cssClass(cell) ?? (textColumns.contains(index) ? "text" : nil)
                return "<td\(css.map { " class=\"\($0)\"" } ?? "")>\(escape(cell))</td>"
            }.joined() + "</tr>\n"
        }
        return html + "</table></div>\n"
    }
}

extension RunComparison {
    /// The column headings of ``render()``.
    public static let headings = ["run", "figure", "earlier", "now", "change", "noise", ""]

    /// One row of cells per figure: run, figure, medians then and now, change, noise, mark.
    public func cells() -> [[String]] {
        rows.map { row in
            [row.run, row.figure.title, row.figure.format(row.earlier.median), row.figure.format(row.now.median),
             Self.percent(row.changePercent), row.noise.map { "±" + row.figure.format($0) } ?? "-", Self.mark(row.verdict)]
        }
    }

    /// `+2.5 %`, `-0.3 %`, `n/a` (the earlier value was 0).
    public static func percent(_ change: Double?) -> String {
        guard let change else { return "n/a" }
        return (change >= 0 ? "+" : "") + ComparisonTable.format(change, 1) + " %"
    }

    /// `better` or `WORSE` beyond the noise, nothing within it, `?` when the noise is unknown.
    public static func mark(_ verdict: Verdict) -> String {
        switch verdict {
        case .better: "better"
        case .worse: "WORSE"
        case .withinNoise: ""
        case .unmeasured: "?"
        }
    }

    /// A title line, the aligned table (the run's name once per group) and notes.
    public func render() -> String {
        var lines = ["compared with \(earlier.command) (recorded \(earlier.recorded), \(earlier.repeats) repeat\(earlier.repeats == 1 ? "" : "s"))"]
        var table = [Self.headings]
        var previous = ""
        for var cells in cells() {
            if cells[0] == previous { cells[0] = "" } else { previous = cells[0] }
            table.append(cells)
        }
        let widths = Self.headings.indices.map { c in table.map { $0[c].count }.max() ?? 0 }
        for row in table {
            lines.append(row.indices.map { c in
                let pad = String(repeating: " ", count: widths[c] - row[c].count)
                return c < 2 || c == row.count - 1 ? row[c] + pad : pad + row[c]
            }.joined(separator: "  ").trailingSpacesRemoved)
        }
        lines += notes().map { "  " + $0 }
        return lines.joined(separator: "\n")
    }

    /// What the table leaves out: runs on one side only, mismatched sizes, the meaning of `?`.
    public func notes() -> [String] {
        var notes: [String] = []
        if !onlyEarlier.isEmpty { notes.append("only in the stored run: " + onlyEarlier.joined(separator: ", ")) }
        if !onlyNow.isEmpty { notes.append("not in the stored run: " + onlyNow.joined(separator: ", ")) }
        for text in mismatched { notes.append("different sizes, not comparable: " + text) }
        if rows.contains(where: { $0.verdict == .unmeasured }) {
            notes.append("?: neither run was repeated, so no noise was measured (run both with --repeat 3 or more)")
        }
        notes.append("better/WORSE: the medians differ by more than the noise (the larger spread, max - min, of the two runs' repeats)")
        return notes
    }
}

extension String {
    /// The text without the spaces that pad its last column.
    var trailingSpacesRemoved: String {
        var text = Substring(self)
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}

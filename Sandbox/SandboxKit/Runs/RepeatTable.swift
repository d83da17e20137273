/// `--repeat N` with N > 1: each run's figures as `min / median / max` over its repeats.
///
/// For example:
/// ```swift
/// print(RepeatTable(runs).render())
/// ```
public struct RepeatTable: Sendable {
    /// The runs.
    public let runs: [RepeatedResult]

    /// A table of `runs`.
    public init(_ runs: [RepeatedResult]) { self.runs = runs }

    /// The column headings.
    public static var headings: [String] { ["run", "repeats"] + Figure.allCases.map(\.title) }

    /// `min / median / max` of `figure` in `run`.
    public static func cell(_ run: RepeatedResult, _ figure: Figure) -> String {
        let stats = run.stats(figure)
        return [stats.min, stats.median, stats.max].map(figure.format).joined(separator: " / ")
    }

    /// One row of cells per run.
    public func rows() -> [[String]] {
        runs.map { run in [run.key, "\(run.repeats.count)"] + Figure.allCases.map { Self.cell(run, $0) } }
    }

    /// The table as aligned text.
    public func render() -> String {
        let all = [Self.headings] + rows()
        let widths = Self.headings.indices.map { c in all.map { $0[c].count }.max() ?? 0 }
        return (["min / median / max over the repeats:"] + all.map { row in
            row.indices.map { c in
                let pad = String(repeating: " ", count: widths[c] - row[c].count)
                return c == 0 ? row[c] + pad : pad + row[c]
            }.joined(separator: "  ").trailingSpacesRemoved
        }).joined(separator: "\n")
    }
}

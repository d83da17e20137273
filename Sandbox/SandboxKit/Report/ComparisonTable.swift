import Foundation

/// The plain-text comparison table the Sandbox prints: one row per run.
///
/// For example:
/// ```swift
/// print(ComparisonTable(records.map(\.result)).render())
/// ```
public struct ComparisonTable: Sendable {
    /// The runs, in order.
    public let results: [RunResult]

    /// A table of `results`.
    public init(_ results: [RunResult]) { self.results = results }

    /// The column headings.
    public static let headings = ["scenario", "stack", "objects", "wall s", "objects/s", "x raw", "main busy s", "busy %",
                                  "p50 ms", "p99 ms", "max ms", ">=16.7", ">=100", ">=250", "peak RSS MB", "RSS at start", "in main", "merges", "check"]

    /// One row of cells per result.
    public func rows() -> [[String]] {
        results.map { r in
            [r.variant.map { "\(r.scenario)/\($0)" } ?? r.scenario, r.stack, "\(r.objects)",
             Self.format(r.wallSeconds, 3), Self.format(r.objectsPerSecond, 0), Self.format(r.ratioToRaw, 3),
             Self.format(r.mainBusySeconds, 3), Self.format(r.mainBusyShare * 100, 2),
             Self.format(r.stallP50Ms, 2), Self.format(r.stallP99Ms, 2), Self.format(r.stallMaxMs, 1),
             "\(r.stallsOver16Ms)", "\(r.stallsOver100Ms)", "\(r.stallsOver250Ms)",
             Self.format(Double(r.peakRSSBytes) / 1_048_576, 1), Self.format(Double(r.rssAtStartBytes) / 1_048_576, 1), "\(r.registeredInMain)", "\(r.mergesIntoMain)", r.check == "ok" ? "ok" : "FAIL"]
        }
    }

    /// The table as aligned text (text columns left, numbers right).
    public func render() -> String {
        let all = [Self.headings] + rows()
        let widths = Self.headings.indices.map { c in all.map { $0[c].count }.max() ?? 0 }
        let leftAligned: Set<Int> = [0, 1, Self.headings.count - 1]
        return all.map { row in
            row.indices.map { c in
                let pad = String(repeating: " ", count: widths[c] - row[c].count)
                return leftAligned.contains(c) ? row[c] + pad : pad + row[c]
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }.joined(separator: "\n")
    }

    /// Notes printed under the table: what a failed check found, and where the peak RSS is per process.
    public func footnotes() -> [String] {
        var notes: [String] = []
        for r in results where r.check != "ok" { notes.append("check failed: \(r.scenario) on \(r.stack): \(r.check)") }
        for r in results where !r.detail.isEmpty { notes.append("\(r.scenario) on \(r.stack): \(r.detail)") }
        if results.contains(where: { $0.peakRSSScope == "process" }) { notes.append("peak RSS is the whole process's (the kernel refused a per-run reset)") }
        return notes
    }

    static func format(_ value: Double, _ decimals: Int) -> String { String(format: "%.\(decimals)f", value) }
}

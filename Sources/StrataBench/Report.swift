/// Prints measurements as a plain table or as JSON lines.
import Foundation

/// Writes the results: ratios compare rates (objects/s) of the same statistic, best to best
/// and median to median, against the named raw SQLite baseline.
struct Report {
    let measurements: [Measurement]
    let options: Options

    private func baseline(of m: Measurement) -> Measurement? {
        m.baseline.flatMap { name in measurements.first { $0.name == name } }
    }

    func print() {
        if options.json { printJSON() } else { printTable() }
    }

    private func printTable() {
        Swift.print("objects: \(options.objects), batch: \(options.batch == 0 ? "one save" : String(options.batch)), runs: \(options.runs)")
        let header = ["benchmark", "best s", "median s", "best obj/s", "median obj/s", "ratio best", "ratio median"]
        var rows = [header]
        for m in measurements {
            let base = baseline(of: m)
            rows.append([
                m.name, format(m.best, 4), format(m.median, 4),
                format(m.bestRate, 0), format(m.medianRate, 0),
                base.map { format(m.bestRate / $0.bestRate, 3) + "x" } ?? "-",
                base.map { format(m.medianRate / $0.medianRate, 3) + "x" } ?? "-",
            ])
        }
        let widths = header.indices.map { c in rows.map { $0[c].count }.max() ?? 0 }
        for row in rows {
            let cells = row.indices.map { c in
                c == 0 ? row[c].padding(toLength: widths[c], withPad: " ", startingAt: 0)
                       : String(repeating: " ", count: widths[c] - row[c].count) + row[c]
            }
            Swift.print(cells.joined(separator: "  "))
        }
    }

    private func printJSON() {
        for m in measurements {
            let base = baseline(of: m)
            var fields: [(String, String)] = [
                ("name", "\"\(m.name)\""), ("objects", "\(m.objects)"), ("batch", "\(options.batch)"),
                ("runs", "\(m.seconds.count)"),
                ("best_seconds", format(m.best, 6)), ("median_seconds", format(m.median, 6)),
                ("best_objects_per_second", format(m.bestRate, 0)), ("median_objects_per_second", format(m.medianRate, 0)),
            ]
            if let base {
                fields.append(("baseline", "\"\(base.name)\""))
                fields.append(("ratio_best", format(m.bestRate / base.bestRate, 4)))
                fields.append(("ratio_median", format(m.medianRate / base.medianRate, 4)))
            }
            Swift.print("{" + fields.map { "\"\($0.0)\": \($0.1)" }.joined(separator: ", ") + "}")
        }
    }

    private func format(_ value: Double, _ decimals: Int) -> String {
        String(format: "%.\(decimals)f", value)
    }
}

import Foundation

/// An inline SVG strip of one run's main-queue stalls: time across, lateness up on a log
/// scale from 1 ms to 1 s, with lines at 16.7, 100 and 250 ms.
///
/// For example:
/// ```swift
/// let svg = StallTimelineSVG(record: record).render()
/// ```
public struct StallTimelineSVG: Sendable {
    /// The run drawn.
    public let record: RunRecord
    /// Size in pixels.
    public var width = 1100.0, height = 130.0

    /// A chart of `record`.
    public init(record: RunRecord) { self.record = record }

    private let left = 48.0, bottom = 18.0, top = 6.0

    private func y(_ ms: Double) -> Double {
        let clamped = min(max(ms, 1), 1000)
        let plot = height - bottom - top
        return top + plot - log10(clamped) / 3 * plot
    }

    /// The `<svg>` element.
    public func render() -> String {
        let duration = max(record.heartbeatSeconds, 0.001)
        let plotWidth = width - left - 8
        func x(_ seconds: Double) -> Double { left + min(seconds / duration, 1) * plotWidth }
        let background = "#fafafa", frame = "#cccccc"
        var parts: [String] = []
        parts.append(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 \#(Int(width)) \#(Int(height))" width="100%" style="max-width: \#(Int(width))px" role="img">"#)
        parts.append(#"<rect x="\#(left)" y="\#(top)" width="\#(plotWidth)" height="\#(height - bottom - top)" fill="\#(background)" stroke="\#(frame)"/>"#)
        for (ms, color) in [(16.7, "#e0a000"), (100.0, "#e06000"), (250.0, "#c00000")] {
            let yy = y(ms)
            parts.append(#"<line x1="\#(left)" x2="\#(left + plotWidth)" y1="\#(f(yy))" y2="\#(f(yy))" stroke="\#(color)" stroke-dasharray="4 3"/>"#)
            parts.append(#"<text x="\#(left - 4)" y="\#(f(yy + 4))" font-size="10" text-anchor="end" fill="\#(color)">\#(ms == 16.7 ? "16.7" : String(Int(ms)))</text>"#)
        }
        parts.append(#"<text x="\#(left - 4)" y="\#(f(y(1) + 4))" font-size="10" text-anchor="end">1 ms</text>"#)
        parts.append(#"<text x="\#(left - 4)" y="\#(f(y(1000) + 8))" font-size="10" text-anchor="end">1 s</text>"#)
        // Merge samples that share a pixel column: keep the largest.
        var columns: [Int: Double] = [:]
        for sample in record.timeline {
            let column = Int(x(sample.offsetSeconds))
            columns[column] = max(columns[column] ?? 0, sample.latenessMs)
        }
        let base = y(1)
        for (column, ms) in columns.sorted(by: { $0.key < $1.key }) {
            let color = ms >= 100 ? "#c00000" : ms >= 16.7 ? "#e07000" : "#4a7fb5"
            parts.append(#"<line x1="\#(column)" x2="\#(column)" y1="\#(f(base))" y2="\#(f(y(ms)))" stroke="\#(color)" stroke-width="1"/>"#)
        }
        parts.append(#"<text x="\#(left)" y="\#(Int(height - 4))" font-size="10">0 s</text>"#)
        parts.append(#"<text x="\#(left + plotWidth)" y="\#(Int(height - 4))" font-size="10" text-anchor="end">\#(String(format: "%.2f", duration)) s</text>"#)
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }
}

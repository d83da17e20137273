import Foundation

/// Grouped bars comparing the stacks on one scenario: four panels (× raw, main busy %, max
/// stall on a log scale with the 16.7 ms frame line, peak RSS), one bar per stack in its
/// ``StackColors`` colour, each labelled with its value. The SVG scales to its container's
/// width, so it stays readable in a narrow window.
///
/// For example:
/// ```swift
/// let svg = StackBarsSVG(title: "import", results: importResults).render()
/// ```
public struct StackBarsSVG: Sendable {
    /// One panel of the chart.
    public enum Panel: String, CaseIterable, Sendable {
        /// Objects per second over raw SQLite's, linear.
        case ratioToRaw
        /// Main-queue busy time in percent of the wall time, 0 to 100.
        case mainBusyPercent
        /// The largest stall, log scale from 0.1 ms to 1 s, with the 16.7 ms frame line.
        case stallMaxMs
        /// Peak resident memory in MiB, linear.
        case peakRSSMB

        /// The panel's heading.
        public var title: String {
            switch self {
            case .ratioToRaw: "× raw SQLite (higher is faster)"
            case .mainBusyPercent: "main busy % of wall"
            case .stallMaxMs: "max stall, ms (log)"
            case .peakRSSMB: "peak RSS, MB"
            }
        }

        /// The value drawn for `result`.
        public func value(of result: RunResult) -> Double {
            switch self {
            case .ratioToRaw: result.ratioToRaw
            case .mainBusyPercent: result.mainBusyShare * 100
            case .stallMaxMs: result.stallMaxMs
            case .peakRSSMB: Double(result.peakRSSBytes) / 1_048_576
            }
        }

        /// The label of a value.
        public func label(_ value: Double) -> String {
            switch self {
            case .ratioToRaw: String(format: "%.3f", value)
            case .mainBusyPercent, .stallMaxMs, .peakRSSMB: String(format: "%.1f", value)
            }
        }
    }

    /// `scenario[/variant]`.
    public let title: String
    /// One result per stack, in the order drawn.
    public let results: [RunResult]

    /// A chart of `results` (one per stack).
    public init(title: String, results: [RunResult]) {
        self.title = title
        self.results = results
    }

    static let panelWidth = 200.0, height = 180.0, top = 34.0, bottom = 30.0, gap = 14.0
    /// The share of the plot's height the largest value of a linear panel fills (room for its label).
    static let fill = 0.9
    /// The log scale of the stall panel: 0.1 ms to 1 s (values outside are drawn at the ends).
    static let stallRange = (low: 0.1, high: 1000.0)
    static let axisColor = "#999999", frameColor = "#c00000"
    /// A missed 60 Hz frame.
    public static let frameMs = 16.7

    /// The height of a bar for `value` in `panel`, given the panel's largest value.
    static func barHeight(_ panel: Panel, _ value: Double, largest: Double) -> Double {
        let plot = height - top - bottom
        switch panel {
        case .stallMaxMs:
            let low = log10(stallRange.low), high = log10(stallRange.high)
            let clamped = min(max(value, stallRange.low), stallRange.high)
            return (log10(clamped) - low) / (high - low) * plot
        case .mainBusyPercent:
            return min(max(value, 0), 100) / 100 * plot
        case .ratioToRaw, .peakRSSMB:
            return largest > 0 ? max(value, 0) / largest * plot * Self.fill : 0
        }
    }

    /// The `<svg>` element.
    public func render() -> String {
        let width = Self.panelWidth * Double(Panel.allCases.count)
        var parts = [#"<svg xmlns="http://www.w3.org/2000/svg" class="stack-bars" viewBox="0 0 \#(Int(width)) \#(Int(Self.height))" width="100%" style="max-width: \#(Int(width))px" role="img" aria-label="\#(HTMLReport.escape(title)): stacks compared">"#]
        let baseline = Self.height - Self.bottom
        for (index, panel) in Panel.allCases.enumerated() {
            let x0 = Double(index) * Self.panelWidth
            let values = results.map(panel.value(of:))
            let largest = values.max() ?? 0
            parts.append(#"<g class="panel" data-panel="\#(panel.rawValue)">"#)
            parts.append(#"<text x="\#(f(x0 + Self.panelWidth / 2))" y="14" font-size="11" text-anchor="middle">\#(HTMLReport.escape(panel.title))</text>"#)
            parts.append(#"<line x1="\#(f(x0 + Self.gap))" x2="\#(f(x0 + Self.panelWidth - Self.gap))" y1="\#(f(baseline))" y2="\#(f(baseline))" stroke="\#(Self.axisColor)"/>"#)
            let slot = (Self.panelWidth - 2 * Self.gap) / Double(max(results.count, 1))
            for (i, result) in results.enumerated() {
                let value = values[i]
                let h = Self.barHeight(panel, value, largest: largest)
                let x = x0 + Self.gap + Double(i) * slot + slot * 0.15
                let color = StackColors.color(of: result.stack)
                parts.append(#"<rect class="bar" data-stack="\#(result.stack)" data-panel="\#(panel.rawValue)" data-value="\#(panel.label(value))" x="\#(f(x))" y="\#(f(baseline - h))" width="\#(f(slot * 0.7))" height="\#(f(h))" fill="\#(color)"><title>\#(result.stack): \#(panel.label(value))</title></rect>"#)
                parts.append(#"<text x="\#(f(x + slot * 0.35))" y="\#(f(baseline - h - 3))" font-size="10" text-anchor="middle">\#(panel.label(value))</text>"#)
            }
            if panel == .stallMaxMs {
                let y = baseline - Self.barHeight(.stallMaxMs, Self.frameMs, largest: 0)
                parts.append(#"<line class="frame-line" data-ms="16.7" x1="\#(f(x0 + Self.gap))" x2="\#(f(x0 + Self.panelWidth - Self.gap))" y1="\#(f(y))" y2="\#(f(y))" stroke="\#(Self.frameColor)" stroke-dasharray="4 3"/>"#)
                parts.append(#"<text x="\#(f(x0 + Self.panelWidth - Self.gap))" y="\#(f(baseline + 13))" font-size="10" text-anchor="end" fill="\#(Self.frameColor)">dashed: 16.7 ms frame</text>"#)
            }
            parts.append("</g>")
        }
        // The legend: each stack's colour once, under the panels.
        for (i, result) in results.enumerated() {
            let x = 20 + Double(i) * 140, y = Self.height - 12
            let color = StackColors.color(of: result.stack)
            parts.append(#"<rect class="legend" x="\#(f(x))" y="\#(f(y - 9))" width="10" height="10" fill="\#(color)"/>"#)
            parts.append(#"<text x="\#(f(x + 14))" y="\#(f(y))" font-size="11" fill="\#(color)">\#(HTMLReport.escape(result.stack))</text>"#)
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private func f(_ value: Double) -> String { String(format: "%.1f", value) }
}

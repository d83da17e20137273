import Foundation

/// The text of the live progress line: scenario and stack, units done of total, elapsed time
/// and an estimate of what is left.
///
/// For example:
/// ```swift
/// let line = ProgressLine(label: "import/hybrid", done: 50_000, total: 200_000, unit: "objects",
///                         elapsedSeconds: 5, measuredSeconds: 4)
/// print(line.render())   // import/hybrid  50000/200000 objects (25%)  5.0 s, ~12 s left
/// ```
public struct ProgressLine: Sendable, Equatable {
    /// `scenario[/variant]/stack`, with the repeat when there are several.
    public var label: String
    /// Units done.
    public var done: Int
    /// Units in all; 0 when the scenario reports none.
    public var total: Int
    /// What is counted.
    public var unit: String
    /// Seconds since the run started (set-up included).
    public var elapsedSeconds: Double
    /// Seconds since the measured work started; nil while the run is still being set up.
    public var measuredSeconds: Double?

    /// A line.
    public init(label: String, done: Int, total: Int, unit: String, elapsedSeconds: Double, measuredSeconds: Double?) {
        self.label = label
        self.done = done
        self.total = total
        self.unit = unit
        self.elapsedSeconds = elapsedSeconds
        self.measuredSeconds = measuredSeconds
    }

    /// Seconds left at the rate so far; nil before anything is done or when the total is unknown.
    public var secondsLeft: Double? {
        guard let measuredSeconds, total > 0, done > 0, measuredSeconds > 0 else { return nil }
        return measuredSeconds * Double(max(0, total - done)) / Double(done)
    }

    /// The line, cut to `width` characters when given (a terminal's width).
    public func render(width: Int? = nil) -> String {
        var parts = [label]
        if measuredSeconds == nil {
            parts.append("setting up")
        } else if total > 0 {
            parts.append("\(min(done, total))/\(total) \(unit) (\(min(100, done * 100 / total))%)")
        } else {
            parts.append("running")
        }
        var time = Self.duration(elapsedSeconds)
        if let left = secondsLeft {
            time += left == 0 ? ", finishing" : left < 1 ? ", <1 s left" : ", ~\(Self.duration(left, estimate: true)) left"
        }
        parts.append(time)
        let text = parts.joined(separator: "  ")
        guard let width, width > 1, text.count > width - 1 else { return text }
        return String(text.prefix(width - 1))
    }

    /// `4.2 s`, `12 s`, `3 min 05 s`; estimates are rounded to whole seconds.
    public static func duration(_ seconds: Double, estimate: Bool = false) -> String {
        let s = max(0, seconds)
        if s < 60 { return estimate || s >= 10 ? "\(Int(s.rounded())) s" : String(format: "%.1f s", s) }
        let whole = Int(s.rounded())
        return String(format: "%d min %02d s", whole / 60, whole % 60)
    }
}

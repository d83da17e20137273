/// `--compare FILE`: each figure of this invocation next to the stored one, the change in
/// percent, and whether it moved beyond the noise.
///
/// The noise of a figure is the larger spread (largest minus smallest repeat) of the two runs;
/// a change counts when the medians differ by more than that. With a single repeat on both
/// sides there is no noise to compare with, and the change is marked ``Verdict/unmeasured``.
///
/// For example:
/// ```swift
/// let comparison = RunComparison(earlier: try StoredRun.read(from: url), now: runs)
/// print(comparison.render())
/// ```
public struct RunComparison: Sendable {
    /// What a change amounts to.
    public enum Verdict: String, Sendable {
        /// Moved beyond the noise, the good way (faster, fewer stalls, less memory).
        case better
        /// Moved beyond the noise, the bad way.
        case worse
        /// Within the noise.
        case withinNoise
        /// Neither run was repeated: no noise to judge by.
        case unmeasured
    }

    /// One figure of one run, then and now.
    public struct Row: Sendable, Hashable {
        /// ``RepeatedResult/key``.
        public var run: String
        /// The figure.
        public var figure: Figure
        /// The stored run's repeats.
        public var earlier: FigureStats
        /// This invocation's repeats.
        public var now: FigureStats
        /// The change of the median in percent of the earlier one (nil when that is 0 and the new one is not).
        public var changePercent: Double?
        /// The noise the change is judged by (nil when neither run was repeated).
        public var noise: Double?
        /// What the change amounts to.
        public var verdict: Verdict
    }

    /// The stored run compared with.
    public let earlier: StoredRun
    /// One row per figure of every run in both.
    public let rows: [Row]
    /// Runs of the stored file not run now, and runs now not in the file.
    public let onlyEarlier: [String], onlyNow: [String]
    /// Runs measured on different object counts or batch sizes (their figures do not compare).
    public let mismatched: [String]

    /// Compares `now` with `earlier`, run by run (matched by ``RepeatedResult/key``).
    public init(earlier: StoredRun, now: [RepeatedResult]) {
        self.earlier = earlier
        var before: [String: RepeatedResult] = [:]
        for run in earlier.runs { before[run.key] = run }
        let nowKeys = Set(now.map(\.key))
        var rows: [Row] = [], mismatched: [String] = []
        for run in now {
            guard let old = before[run.key] else { continue }
            if old.result.objects != run.result.objects || old.result.batch != run.result.batch {
                mismatched.append("\(run.key): \(old.result.objects) objects, batch \(old.result.batch) then; \(run.result.objects), batch \(run.result.batch) now")
            }
            for figure in Figure.allCases {
                rows.append(Self.row(run: run.key, figure: figure, earlier: old.stats(figure), now: run.stats(figure)))
            }
        }
        self.rows = rows
        self.mismatched = mismatched
        onlyEarlier = earlier.runs.map(\.key).filter { !nowKeys.contains($0) }
        onlyNow = now.map(\.key).filter { before[$0] == nil }
    }

    /// The row for one figure: change in percent, noise and verdict.
    public static func row(run: String, figure: Figure, earlier: FigureStats, now: FigureStats) -> Row {
        let delta = now.median - earlier.median
        let change = earlier.median != 0 ? delta / abs(earlier.median) * 100 : delta == 0 ? 0 : nil
        let noise: Double? = (earlier.noise != nil || now.noise != nil) ? max(earlier.spread, now.spread) : nil
        let verdict: Verdict
        if let noise {
            if abs(delta) <= noise { verdict = .withinNoise }
            else { verdict = (delta > 0) == figure.higherIsBetter ? .better : .worse }
        } else {
            verdict = delta == 0 ? .withinNoise : .unmeasured
        }
        return Row(run: run, figure: figure, earlier: earlier, now: now, changePercent: change, noise: noise, verdict: verdict)
    }
}

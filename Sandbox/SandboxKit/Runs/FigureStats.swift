/// One figure over the repeats of a run: smallest, median and largest. The spread (largest
/// minus smallest) is the run's noise for that figure.
///
/// For example:
/// ```swift
/// let stats = FigureStats([10, 12, 11])
/// print(stats.min, stats.median, stats.max, stats.spread)   // 10 11 12 2
/// ```
public struct FigureStats: Sendable, Hashable {
    /// The smallest value.
    public var min: Double
    /// The median (the mean of the two middle values for an even count).
    public var median: Double
    /// The largest value.
    public var max: Double
    /// How many values.
    public var count: Int

    /// The statistics of `values` (zeros for none).
    public init(_ values: [Double]) {
        let sorted = values.sorted()
        count = sorted.count
        min = sorted.first ?? 0
        max = sorted.last ?? 0
        median = Self.median(sorted)
    }

    /// `max - min`: the noise of the figure, known once there are two values or more.
    public var spread: Double { max - min }

    /// The spread, or nil for a single value (no noise measured).
    public var noise: Double? { count > 1 ? spread : nil }

    /// The median of values already sorted.
    static func median(_ sorted: [Double]) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

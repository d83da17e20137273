/// A figure of a run that repeats summarise and comparisons set side by side, with the
/// direction that counts as better.
///
/// For example:
/// ```swift
/// let rate = Figure.objectsPerSecond.value(of: result)
/// print(Figure.objectsPerSecond.title, rate, Figure.objectsPerSecond.higherIsBetter)
/// ```
public enum Figure: String, CaseIterable, Sendable, Codable {
    /// ``RunResult/wallSeconds``.
    case wallSeconds
    /// ``RunResult/objectsPerSecond``.
    case objectsPerSecond
    /// ``RunResult/ratioToRaw``.
    case ratioToRaw
    /// ``RunResult/mainBusyShare`` in percent.
    case mainBusyPercent
    /// ``RunResult/stallP99Ms``.
    case stallP99Ms
    /// ``RunResult/stallMaxMs``.
    case stallMaxMs
    /// ``RunResult/stallsOver16Ms``.
    case stallsOver16Ms
    /// ``RunResult/peakRSSBytes`` in MiB.
    case peakRSSMB

    /// The heading used in tables (the comparison table's own, where there is one).
    public var title: String {
        switch self {
        case .wallSeconds: "wall s"
        case .objectsPerSecond: "objects/s"
        case .ratioToRaw: "x raw"
        case .mainBusyPercent: "busy %"
        case .stallP99Ms: "p99 ms"
        case .stallMaxMs: "max ms"
        case .stallsOver16Ms: ">=16.7"
        case .peakRSSMB: "peak RSS MB"
        }
    }

    /// Whether a larger value is an improvement (rates) or not (times, stalls, memory).
    public var higherIsBetter: Bool { self == .objectsPerSecond || self == .ratioToRaw }

    /// Decimals shown.
    public var decimals: Int {
        switch self {
        case .wallSeconds, .ratioToRaw: 3
        case .objectsPerSecond, .stallsOver16Ms: 0
        case .mainBusyPercent, .stallP99Ms: 2
        case .stallMaxMs, .peakRSSMB: 1
        }
    }

    /// The figure's value in `result`.
    public func value(of result: RunResult) -> Double {
        switch self {
        case .wallSeconds: result.wallSeconds
        case .objectsPerSecond: result.objectsPerSecond
        case .ratioToRaw: result.ratioToRaw
        case .mainBusyPercent: result.mainBusyShare * 100
        case .stallP99Ms: result.stallP99Ms
        case .stallMaxMs: result.stallMaxMs
        case .stallsOver16Ms: Double(result.stallsOver16Ms)
        case .peakRSSMB: Double(result.peakRSSBytes) / 1_048_576
        }
    }

    /// `value` with this figure's decimals.
    public func format(_ value: Double) -> String { ComparisonTable.format(value, decimals) }
}

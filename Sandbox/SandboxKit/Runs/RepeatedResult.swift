/// One run (a scenario variant on a stack) measured `--repeat N` times: each figure's median
/// in ``result`` (what the table and `--json` print) and every repeat kept.
///
/// For example:
/// ```swift
/// let runs = RepeatedResult.aggregate([firstPass, secondPass, thirdPass])
/// print(runs[0].stats(.objectsPerSecond).median)
/// ```
public struct RepeatedResult: Sendable, Codable, Hashable {
    /// The median of each numeric figure over the repeats; the first repeat's names, and the
    /// first failed check if any repeat failed.
    public var result: RunResult
    /// Every repeat, in the order run.
    public var repeats: [RunResult]

    /// A run from its repeats; nil for none.
    public init?(repeats: [RunResult]) {
        guard let median = Self.median(of: repeats) else { return nil }
        self.repeats = repeats
        self.result = median
    }

    /// `scenario[/variant] on stack`: what identifies a run across invocations.
    public var key: String { Self.key(of: result) }

    /// The key of one result.
    public static func key(of result: RunResult) -> String {
        "\(result.variant.map { "\(result.scenario)/\($0)" } ?? result.scenario) on \(result.stack)"
    }

    /// `figure` over the repeats.
    public func stats(_ figure: Figure) -> FigureStats {
        FigureStats(repeats.map(figure.value(of:)))
    }

    /// The passes of an invocation (each the results of one whole run of the selected scenarios)
    /// grouped by run, in the first pass's order.
    public static func aggregate(_ passes: [[RunResult]]) -> [RepeatedResult] {
        var order: [String] = []
        var byKey: [String: [RunResult]] = [:]
        for pass in passes {
            for result in pass {
                let key = key(of: result)
                if byKey[key] == nil { order.append(key) }
                byKey[key, default: []].append(result)
            }
        }
        return order.compactMap { byKey[$0].flatMap(RepeatedResult.init(repeats:)) }
    }

    /// Each numeric field's median, independently.
    static func median(of repeats: [RunResult]) -> RunResult? {
        guard var median = repeats.first else { return nil }
        guard repeats.count > 1 else { return median }
        func mid(_ values: [Double]) -> Double { FigureStats(values).median }
        let doubles: [WritableKeyPath<RunResult, Double>] = [\.wallSeconds, \.objectsPerSecond, \.rawObjectsPerSecond, \.ratioToRaw,
                                                             \.mainBusySeconds, \.mainBusyShare, \.stallP50Ms, \.stallP99Ms, \.stallMaxMs]
        for path in doubles { median[keyPath: path] = mid(repeats.map { $0[keyPath: path] }) }
        let ints: [WritableKeyPath<RunResult, Int>] = [\.objects, \.heartbeats, \.stallsOver16Ms, \.stallsOver100Ms, \.stallsOver250Ms,
                                                       \.registeredInMain, \.mergesIntoMain, \.mainChangeSets, \.mainQueueWrites]
        for path in ints { median[keyPath: path] = Int(mid(repeats.map { Double($0[keyPath: path]) }).rounded()) }
        let bytes: [WritableKeyPath<RunResult, UInt64>] = [\.peakRSSBytes, \.rssAtStartBytes]
        for path in bytes { median[keyPath: path] = UInt64(mid(repeats.map { Double($0[keyPath: path]) }).rounded()) }
        for key in Set(repeats.flatMap(\.counters.keys)) {
            median.counters[key] = Int(mid(repeats.map { Double($0.counters[key] ?? 0) }).rounded())
        }
        if let failed = repeats.first(where: { $0.check != "ok" }) { median.check = failed.check }
        if repeats.contains(where: { $0.peakRSSScope == "process" }) { median.peakRSSScope = "process" }
        return median
    }
}

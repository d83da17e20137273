/// The one-line verdict under a scenario's bars: which stack keeps the UI free, which is
/// fastest, and by how much.
///
/// For example:
/// ```swift
/// print(StackVerdict(results).text)
/// // hybrid keeps the UI freest (max stall 5.3 ms, no missed frame; asyncSaving 106.0 ms); hybrid is fastest (8419 objects/s, 3.3× asyncSaving)
/// ```
public struct StackVerdict: Sendable {
    /// One result per stack.
    public let results: [RunResult]

    /// The verdict on `results`.
    public init(_ results: [RunResult]) { self.results = results }

    /// The line (empty for fewer than two stacks).
    public var text: String {
        guard results.count > 1,
              let freest = results.min(by: { $0.stallMaxMs < $1.stallMaxMs }),
              let worstStall = results.max(by: { $0.stallMaxMs < $1.stallMaxMs }),
              let fastest = results.max(by: { $0.objectsPerSecond < $1.objectsPerSecond }),
              let slowest = results.min(by: { $0.objectsPerSecond < $1.objectsPerSecond }) else { return "" }
        let frames = freest.stallsOver16Ms == 0 ? "no missed frame" : "\(freest.stallsOver16Ms) missed frames"
        let ui = "\(freest.stack) keeps the UI freest (max stall \(ComparisonTable.format(freest.stallMaxMs, 1)) ms, \(frames); \(worstStall.stack) \(ComparisonTable.format(worstStall.stallMaxMs, 1)) ms)"
        let times = fastest.objectsPerSecond / max(slowest.objectsPerSecond, 1e-9)
        let speed = "\(fastest.stack) is fastest (\(ComparisonTable.format(fastest.objectsPerSecond, 0)) objects/s, \(ComparisonTable.format(times, 1))× \(slowest.stack))"
        var parts = [ui, speed]
        if let failed = results.first(where: { $0.check != "ok" }) { parts.append("check failed on \(failed.stack)") }
        return parts.joined(separator: "; ")
    }
}

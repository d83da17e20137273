/// One run's results and its stall timeline (for the HTML report).
///
/// For example:
/// ```swift
/// for record in records { print(record.result.stack, record.timeline.count) }
/// ```
public struct RunRecord: Sendable {
    /// The measurements.
    public var result: RunResult
    /// Every heartbeat at least 1 ms late.
    public var timeline: [StallSample]
    /// How long the heartbeat ran (the measured work plus settling), seconds.
    public var heartbeatSeconds: Double
}

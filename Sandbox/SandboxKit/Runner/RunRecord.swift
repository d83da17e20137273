public import Foundation

/// One run's results, its stall timeline (for the HTML report) and its store file.
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
    /// The store file the run wrote (closed when the record is returned). It is deleted when
    /// the runner returns unless ``SandboxOptions/storeDirectory`` was set.
    public var storeURL: URL

    /// A record (the runner makes them; tests and reports may build their own).
    public init(result: RunResult, timeline: [StallSample], heartbeatSeconds: Double, storeURL: URL) {
        self.result = result
        self.timeline = timeline
        self.heartbeatSeconds = heartbeatSeconds
        self.storeURL = storeURL
    }
}

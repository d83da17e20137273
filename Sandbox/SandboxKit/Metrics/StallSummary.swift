/// What a ``Heartbeat`` recorded: lateness percentiles and counts over every beat, and the
/// stalls of at least 1 ms as a timeline for the report.
///
/// For example:
/// ```swift
/// let summary = heartbeat.stop()
/// print(summary.p99Ms, summary.over100Ms)
/// ```
public struct StallSummary: Sendable {
    /// Beats recorded.
    public var beats: Int
    /// Median lateness, ms.
    public var p50Ms: Double
    /// 99th percentile lateness, ms.
    public var p99Ms: Double
    /// Largest lateness, ms.
    public var maxMs: Double
    /// Beats at least 16.7 ms late (a missed 60 Hz frame).
    public var over16Ms: Int
    /// Beats at least 100 ms late.
    public var over100Ms: Int
    /// Beats at least 250 ms late.
    public var over250Ms: Int
    /// How long the heartbeat ran, seconds.
    public var durationSeconds: Double
    /// Every beat at least 1 ms late, in order.
    public var timeline: [StallSample]
}

/// One late beat: when (seconds after the heartbeat started) and by how much.
public struct StallSample: Sendable, Hashable {
    /// Seconds from the heartbeat's start to the beat that was delayed.
    public var offsetSeconds: Double
    /// How late the next beat came, ms.
    public var latenessMs: Double
}

import Dispatch
import Histogram
import Strata

/// A 1 ms timer on the main queue that records how late each beat fires: lateness is the
/// time since the previous beat minus the interval, so a main queue blocked for 200 ms shows
/// one ~199 ms stall. The heartbeat's own (tiny) work is not counted as main-queue busy time.
///
/// For example:
/// ```swift
/// let heartbeat = Heartbeat()
/// heartbeat.start()
/// // … work …
/// let stalls = heartbeat.stop()
/// print(stalls.maxMs)
/// ```
public final class Heartbeat: Sendable {
    /// The interval between beats.
    public let intervalNanoseconds: UInt64
    private let state: Locked<State>
    private let timer = Locked<DispatchSourceTimerBox?>(nil)
    private let now: @Sendable () -> UInt64
    private let onBeat: (@Sendable (Int) -> Void)?

    /// Beats late by less than this are not kept in the timeline (they are in the histogram).
    static let timelineThresholdNanoseconds: UInt64 = 1_000_000

    struct State {
        var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000, numberOfSignificantValueDigits: .three)
        var start: UInt64 = 0
        var last: UInt64?
        var beats = 0
        var maxNanoseconds: UInt64 = 0
        var over16 = 0, over100 = 0, over250 = 0
        var timeline: [StallSample] = []
    }

    /// A heartbeat beating every `intervalMilliseconds` once started.
    ///
    /// - Parameters:
    ///   - now: The clock lateness is measured with, in nanoseconds (nil: the system's uptime).
    ///     Tests pass a clock they advance by hand, so a stall's length is exact.
    ///   - onBeat: Called on the main queue after each beat is recorded, with the number of
    ///     beats so far. Tests wait on it instead of sleeping until a beat has fired.
    public init(intervalMilliseconds: Int = 1, now: (@Sendable () -> UInt64)? = nil,
                onBeat: (@Sendable (Int) -> Void)? = nil) {
        intervalNanoseconds = UInt64(intervalMilliseconds) * 1_000_000
        state = Locked(State())
        self.now = now ?? { DispatchTime.now().uptimeNanoseconds }
        self.onBeat = onBeat
    }

    /// Starts beating on the main queue. Call from anywhere but the main queue is fine too.
    public func start() {
        let now = self.now()
        state.withLock { $0 = State(); $0.start = now }
        let source = DispatchSource.makeTimerSource(flags: .strict, queue: .main)
        source.schedule(deadline: .now(), repeating: .nanoseconds(Int(intervalNanoseconds)), leeway: .nanoseconds(0))
        source.setEventHandler { [weak self] in self?.beat() }
        timer.withLock { $0 = DispatchSourceTimerBox(source: source) }
        source.resume()
    }

    /// Stops beating and returns what was recorded.
    public func stop() -> StallSummary {
        timer.withLock { box in box?.source.cancel(); box = nil }
        let interval = intervalNanoseconds
        return state.withLock { state in
            let end = now()
            // A stall still in progress when the run ends (the main queue has not beaten since
            // `last`: one long block, say) counts like a late beat.
            let since = state.last ?? state.start
            if end &- since > interval { Self.record(lateness: end &- since - interval, beatAfter: since, in: &state) }
            return StallSummary(
                beats: state.beats,
                p50Ms: Double(state.histogram.valueAtPercentile(50)) / 1000,
                p99Ms: Double(state.histogram.valueAtPercentile(99)) / 1000,
                maxMs: Double(state.maxNanoseconds) / 1e6,
                over16Ms: state.over16, over100Ms: state.over100, over250Ms: state.over250,
                durationSeconds: Double(end &- state.start) / 1e9,
                timeline: state.timeline)
        }
    }

    private func beat() {
        let now = self.now()
        let interval = intervalNanoseconds
        let beats = state.withLock { state -> Int in
            defer { state.last = now }
            // The first beat is measured from the start: a block already running then is a stall too.
            let last = state.last ?? state.start
            let gap = now &- last
            Self.record(lateness: gap > interval ? gap - interval : 0, beatAfter: last, in: &state)
            return state.beats
        }
        onBeat?(beats)
    }

    /// Records one beat that came `lateness` nanoseconds late after the beat at `last`.
    private static func record(lateness: UInt64, beatAfter last: UInt64, in state: inout State) {
        state.beats += 1
        _ = state.histogram.record(lateness / 1000)
        state.maxNanoseconds = max(state.maxNanoseconds, lateness)
        if lateness >= 16_700_000 { state.over16 += 1 }
        if lateness >= 100_000_000 { state.over100 += 1 }
        if lateness >= 250_000_000 { state.over250 += 1 }
        if lateness >= timelineThresholdNanoseconds {
            state.timeline.append(StallSample(offsetSeconds: Double(last &- state.start) / 1e9, latenessMs: Double(lateness) / 1e6))
        }
    }
}

/// Holds the timer (not `Sendable`) so it can sit in a `Locked`.
struct DispatchSourceTimerBox: @unchecked Sendable {  // safe: the source is only resumed and cancelled, both thread-safe in Dispatch
    let source: any DispatchSourceTimer
}

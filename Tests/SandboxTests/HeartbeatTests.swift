import Dispatch
import SandboxKit
import Testing

/// The heartbeat's stall accounting, on a clock the test advances by hand: the stalls have an
/// exact length, so the checks are exact and nothing depends on how long anything really took.
/// The main queue is really held (``onMainQueue(_:)``) so that no beat can fire where the test
/// says none does; beats are awaited through ``BeatSignal``, never slept for.
///
/// The time limit only catches a hang. Each test waits for the main queue, which the whole
/// suite's main-queue work shares: in a fresh clone's CI one test waited 91 s for it (and then
/// passed its checks), so the limit is generous.
@Suite(.timeLimit(.minutes(5))) struct HeartbeatTests {
    /// A stall still in progress when the heartbeat stops is counted: beats have fired (all on
    /// time: the clock has not moved), then the main queue is held, the clock moves 120 ms, and
    /// the heartbeat stops during the hold — one stall of 120 ms minus the 1 ms interval.
    @Test func aStallInProgressAtStopIsCounted() async throws {
        let clock = ManualClock(), beats = BeatSignal()
        let heartbeat = Heartbeat(now: clock.read, onBeat: beats.beat)
        heartbeat.start()
        await beats.wait(forBeat: 1)
        let (summary, fired) = await onMainQueue { () -> (StallSummary, Int) in
            // No beat fires while this block holds the main queue.
            clock.advance(milliseconds: 120)
            let summary = heartbeat.stop()
            return (summary, beats.count)       // every beat before the hold has reported (they ran on main before it)
        }
        #expect(summary.beats == fired + 1)     // the stall in progress counts as one more beat
        #expect(summary.over100Ms == 1)
        #expect(summary.over16Ms == 1)
        #expect(summary.maxMs == 119)
        #expect(summary.timeline.map(\.latenessMs) == [119])
        #expect(summary.timeline.map(\.offsetSeconds) == [0])
    }

    /// A block that holds the main queue before the first beat is counted when the beat comes:
    /// the first beat is measured from `start()`, which happened during the hold.
    @Test func aStallBeforeTheFirstBeatIsCounted() async throws {
        let clock = ManualClock(), beats = BeatSignal()
        let heartbeat = Heartbeat(now: clock.read, onBeat: beats.beat)
        await onMainQueue {                     // main is held before the heartbeat starts
            heartbeat.start()
            clock.advance(milliseconds: 120)
        }
        await beats.wait(forBeat: 1)            // the late first beat has been recorded
        let summary = heartbeat.stop()          // the clock has not moved since: nothing in progress
        #expect(summary.over100Ms == 1)
        #expect(summary.over16Ms == 1)
        #expect(summary.maxMs == 119)
        #expect(summary.timeline.map(\.latenessMs) == [119])
        #expect(summary.timeline.map(\.offsetSeconds) == [0])
    }
}

import Dispatch
import Foundation
import SandboxKit
import Testing

/// Holds the main queue until released (a stand-in for one long block of UI work).
final class MainQueueHold: @unchecked Sendable {  // safe: only semaphores are shared
    private let started = DispatchSemaphore(value: 0)
    private let release = DispatchSemaphore(value: 0)

    func begin() {
        DispatchQueue.main.async { [self] in
            started.signal()
            release.wait()
        }
        started.wait()
    }

    func end() { release.signal() }
}

@Suite struct HeartbeatTests {
    /// A stall still in progress when the heartbeat stops is counted: the main queue is held
    /// for at least 120 ms (a lower bound, not a timing), and the stop happens during the hold.
    @Test func aStallInProgressAtStopIsCounted() async throws {
        let heartbeat = Heartbeat()
        heartbeat.start()
        let hold = MainQueueHold()
        let summary = holdAndStop(heartbeat, hold)
        #expect(summary.over100Ms >= 1)
        #expect(summary.maxMs >= 100)
    }

    private func holdAndStop(_ heartbeat: Heartbeat, _ hold: MainQueueHold) -> StallSummary {
        hold.begin()
        Thread.sleep(forTimeInterval: 0.12)
        let summary = heartbeat.stop()
        hold.end()
        return summary
    }
}

@Suite struct HeartbeatFirstBeatTests {
    /// A block that holds the main queue before the first beat is counted when the beat comes.
    @Test func aStallBeforeTheFirstBeatIsCounted() async throws {
        let heartbeat = Heartbeat()
        let hold = MainQueueHold()
        let summary = await startHeldThenStop(heartbeat, hold)
        #expect(summary.over100Ms >= 1)
    }

    private func startHeldThenStop(_ heartbeat: Heartbeat, _ hold: MainQueueHold) async -> StallSummary {
        holdAroundStart(heartbeat, hold)
        // Let the late first beat fire, then stop (the in-progress path would count it too).
        try? await Task.sleep(for: .milliseconds(20))
        return heartbeat.stop()
    }

    private func holdAroundStart(_ heartbeat: Heartbeat, _ hold: MainQueueHold) {
        hold.begin()                                  // main is held before the heartbeat starts
        heartbeat.start()
        Thread.sleep(forTimeInterval: 0.12)
        hold.end()
    }
}

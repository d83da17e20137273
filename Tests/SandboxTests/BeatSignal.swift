import Strata

/// Counts a ``Heartbeat``'s beats (pass ``beat(_:)`` as its `onBeat`) and lets a test wait
/// for a given beat instead of sleeping.
///
/// For example:
/// ```swift
/// let beats = BeatSignal()
/// let heartbeat = Heartbeat(onBeat: beats.beat)
/// heartbeat.start()
/// await beats.wait(forBeat: 1)
/// ```
final class BeatSignal: Sendable {
    private struct State {
        var beats = 0
        var waiters: [(beat: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }
    private let state = Locked(State())

    /// Beats seen so far.
    var count: Int { state.withLock { $0.beats } }

    /// Records that the heartbeat has beaten `count` times; wakes the waiters it satisfies.
    @Sendable func beat(_ count: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.beats = max(state.beats, count)
            let ready = state.waiters.filter { $0.beat <= state.beats }.map(\.continuation)
            state.waiters.removeAll { $0.beat <= state.beats }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once the heartbeat has beaten at least `beat` times.
    func wait(forBeat beat: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.beats >= beat { return true }
                state.waiters.append((beat, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }
}

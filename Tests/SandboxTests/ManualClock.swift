import Synchronization

/// A nanosecond clock that moves only when the test says so, for a ``Heartbeat`` whose
/// stalls must have an exact length.
///
/// For example:
/// ```swift
/// let clock = ManualClock()
/// let heartbeat = Heartbeat(now: clock.read)
/// clock.advance(milliseconds: 120)
/// ```
final class ManualClock: Sendable {
    private let nanoseconds = Atomic<UInt64>(1_000_000_000)

    /// The current time.
    @Sendable func read() -> UInt64 { nanoseconds.load(ordering: .acquiring) }

    /// Moves the time forward.
    func advance(milliseconds: UInt64) { nanoseconds.add(milliseconds * 1_000_000, ordering: .releasing) }
}

import Dispatch
import Synchronization

/// Adds up the time of the Sandbox's own work on the main queue (the UI's fetched list),
/// which no context's busy time covers.
///
/// For example:
/// ```swift
/// let clock = MainQueueClock()
/// clock.measure { refreshList() }
/// print(clock.seconds)
/// ```
public final class MainQueueClock: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)

    /// A clock at zero.
    public init() {}

    /// Seconds measured so far.
    public var seconds: Double { Double(nanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// Runs `body`, adding its duration.
    public func measure<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { nanoseconds.add(DispatchTime.now().uptimeNanoseconds &- start, ordering: .relaxed) }
        return try body()
    }
}

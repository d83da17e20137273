import Strata
import Synchronization

/// How far the run in progress is: objects done of a total, written by the scenario (an
/// atomic store per batch, no callback) and read by the runner's progress timer.
///
/// For example:
/// ```swift
/// let counter = ProgressCounter()
/// counter.report(5_000, of: 20_000)
/// print(counter.snapshot().done)   // 5000
/// ```
public final class ProgressCounter: Sendable {
    private let done = Atomic<Int>(0)
    private let total = Atomic<Int>(0)
    private let unit = Locked<String>("objects")

    /// What the counter holds at one moment.
    public struct Snapshot: Sendable, Equatable {
        /// Units done.
        public var done: Int
        /// Units in all (0 while the scenario has not said).
        public var total: Int
        /// What is counted (`objects`, `objects+relationships`, `moves`).
        public var unit: String

        /// A snapshot.
        public init(done: Int, total: Int, unit: String) {
            self.done = done
            self.total = total
            self.unit = unit
        }
    }

    /// A counter at 0 of an unknown total.
    public init() {}

    /// Records that `done` of `total` are done; `unit` (when not empty) names what is counted.
    public func report(_ done: Int, of total: Int, unit: String = "") {
        if !unit.isEmpty { self.unit.withLock { if $0 != unit { $0 = unit } } }
        self.total.store(total, ordering: .relaxed)
        self.done.store(done, ordering: .relaxed)
    }

    /// Back to 0 of an unknown total, counting objects.
    public func reset() {
        unit.withLock { $0 = "objects" }
        total.store(0, ordering: .relaxed)
        done.store(0, ordering: .relaxed)
    }

    /// The current values.
    public func snapshot() -> Snapshot {
        Snapshot(done: done.load(ordering: .relaxed), total: total.load(ordering: .relaxed), unit: unit.withLock { $0 })
    }
}

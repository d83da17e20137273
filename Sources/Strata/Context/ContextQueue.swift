import Dispatch
import Synchronization

/// The serial queue a context runs on, and how to tell whether the current code is on it.
///
/// "Am I on the main queue?" is asked of the queue (a queue-specific key), never of the
/// thread: on Linux an async `main` and Swift Testing run the main queue on worker threads.
/// It is also a task executor (``ObjectContext/executor``): a task that prefers it runs on
/// the queue, where the context's `perform` needs no hop.
final class ContextQueue: TaskExecutor {
    let queue: DispatchQueue
    private let token: MainQueue.Token

    /// The main queue (shared by every main-queue context).
    static func main() -> ContextQueue { ContextQueue(queue: .main, token: MainQueue.token) }

    /// A new private serial queue.
    static func makePrivate(label: String) -> ContextQueue {
        let queue = DispatchQueue(label: label)
        let token = MainQueue.Token()
        queue.setSpecific(key: MainQueue.key, value: token)
        return ContextQueue(queue: queue, token: token)
    }

    private init(queue: DispatchQueue, token: MainQueue.Token) {
        self.queue = queue
        self.token = token
    }

    /// Whether this is the main queue.
    var isMain: Bool { token === MainQueue.token }

    /// Whether the calling code runs on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: MainQueue.key) === token }

    /// Nanoseconds spent running work submitted through this queue object (not nested runs).
    private let busyNanoseconds = Atomic<UInt64>(0)
    var busySeconds: Double { Double(busyNanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// Runs `body` on the queue and waits; inline when already on it (re-entrant).
    func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent { return try body() }
        return try queue.sync { try timed(body) }
    }

    /// Runs `body` later on the queue.
    func async(_ body: @escaping @Sendable () -> Void) {
        queue.async { self.timed(body) }
    }

    /// Runs a job of a task that prefers this queue (`withTaskExecutorPreference`) on the
    /// queue, counted as busy time like any block.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { self.timed { job.runSynchronously(on: self.asUnownedTaskExecutor()) } }
    }

    /// Runs `body`, adding its duration to the busy time.
    func timed<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { busyNanoseconds.add(DispatchTime.now().uptimeNanoseconds &- start, ordering: .relaxed) }
        return try body()
    }
}

/// Carries a value across a queue hop that happens exactly once (a `sending` closure or
/// result handed to `DispatchQueue.async`).
struct Transfer<Value>: @unchecked Sendable {  // safe: the value is used by one side only, after the hop
    var value: Value
}

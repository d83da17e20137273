import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The serial queue a context runs on, and how to tell whether the current code is on it.
///
/// "Am I on the main queue?" is asked of the queue (a queue-specific key), never of the
/// thread: on Linux an async `main` and Swift Testing run the main queue on worker threads.
/// It is also a task executor (``ObjectContext/executor``): a task that prefers it runs on
/// the queue, where the context's `perform` needs no hop.
///
/// A private queue can also run a block on the caller's thread while it is idle
/// (``runIfIdle(_:)``), as a call into an idle actor does: ``ObjectContext/perform(_:)``
/// from Swift's global executor then makes no thread hop. Every block of a private queue
/// holds its ``gate`` while it runs, so a block run on a caller's thread and the queue's own
/// blocks never overlap, and ``outstanding`` counts the blocks not yet finished, so a block
/// runs early only when nothing was queued before it.
final class ContextQueue: TaskExecutor {
    private let queue: DispatchQueue
    private let token: MainQueue.Token

    /// Blocks submitted and not yet finished, and a run on a caller's thread (private queues).
    private let outstanding = Atomic<Int>(0)

    /// Blocks of a private queue submitted and not yet finished (a run on a caller's thread
    /// included); 0 for the main queue. For tests and diagnostics.
    var unfinishedBlocks: Int { outstanding.load(ordering: .acquiring) }

    /// Held by whichever block of a private queue is running (none for the main queue).
    private let gate: QueueGate?

    /// The main queue (shared by every main-queue context).
    static func main() -> ContextQueue { ContextQueue(queue: .main, token: MainQueue.token, gate: nil) }

    /// A new private serial queue.
    static func makePrivate(label: String) -> ContextQueue {
        let queue = DispatchQueue(label: label)
        let token = MainQueue.Token()
        queue.setSpecific(key: MainQueue.key, value: token)
        return ContextQueue(queue: queue, token: token, gate: QueueGate())
    }

    private init(queue: DispatchQueue, token: MainQueue.Token, gate: QueueGate?) {
        self.queue = queue
        self.token = token
        self.gate = gate
    }

    /// Whether this is the main queue.
    var isMain: Bool { token === MainQueue.token }

    /// Whether the calling code runs on this queue: in one of its blocks, or in a block it runs
    /// on a caller's thread.
    var isCurrent: Bool {
        DispatchQueue.getSpecific(key: MainQueue.key) === token || InlineRun.current == Unmanaged.passUnretained(self).toOpaque()
    }

    /// Nanoseconds spent running work submitted through this queue object (not nested runs).
    private let busyNanoseconds = Atomic<UInt64>(0)
    var busySeconds: Double { Double(busyNanoseconds.load(ordering: .relaxed)) / 1e9 }

    /// Whether the calling thread holds no context queue: it runs no queue's block, neither on
    /// that queue nor on a caller's thread (the main queue counts as held).
    static var threadHoldsNone: Bool {
        DispatchQueue.getSpecific(key: MainQueue.key) == nil && InlineRun.current == nil
    }

    /// Runs `body` on the queue and waits; inline when already on it (re-entrant).
    func sync<T>(_ body: () throws -> T) rethrows -> T {
        if isCurrent { return try body() }
        guard let gate else { return try queue.sync { try InlineRun.outside { try timed(body) } } }
        outstanding.add(1, ordering: .acquiring)
        return try queue.sync {
            gate.lock()
            defer { finish(gate) }
            // A block run on a caller's thread that waits here is not current inside `body`,
            // as a queue's block is not: the answer must not depend on where the waiter ran.
            return try InlineRun.outside { try timed(body) }
        }
    }

    /// Runs `body` later on the queue.
    func async(_ body: @escaping @Sendable () -> Void) {
        guard let gate else { return queue.async { self.timed(body) } }
        outstanding.add(1, ordering: .acquiring)
        queue.async {
            gate.lock()
            defer { self.finish(gate) }
            self.timed(body)
        }
    }

    /// Runs a job of a task that prefers this queue (`withTaskExecutorPreference`) on the
    /// queue, counted as busy time like any block.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// Runs `body` at once on the calling thread when this private queue is idle (nothing
    /// queued, nothing running) and answers its result; answers `nil` without running it
    /// otherwise, and always on the main queue. The gate is taken first, then the count: a
    /// block queued afterwards waits for `body`, and one queued before makes the count
    /// non-zero, so `body` is handed over instead.
    func runIfIdle<T>(_ body: () throws -> T) rethrows -> T? {
        guard let gate, gate.tryLock() else { return nil }
        guard outstanding.compareExchange(expected: 0, desired: 1, ordering: .acquiring).exchanged else {
            gate.unlock()
            return nil
        }
        defer { finish(gate) }
        let previous = InlineRun.current
        InlineRun.current = Unmanaged.passUnretained(self).toOpaque()
        defer { InlineRun.current = previous }
        return try timed(body)
    }

    /// Ends a block: it no longer counts as outstanding, and the next may run.
    private func finish(_ gate: QueueGate) {
        outstanding.subtract(1, ordering: .releasing)
        gate.unlock()
    }

    /// Runs `body`, adding its duration to the busy time.
    func timed<T>(_ body: () throws -> T) rethrows -> T {
        let start = DispatchTime.now().uptimeNanoseconds
        defer { busyNanoseconds.add(DispatchTime.now().uptimeNanoseconds &- start, ordering: .relaxed) }
        return try body()
    }
}

/// The queue whose block runs on this thread outside the queue itself (``ContextQueue/runIfIdle(_:)``).
private enum InlineRun {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: UnsafeMutableRawPointer? {
        get { pthread_getspecific(key) }
        set { pthread_setspecific(key, newValue) }
    }

    /// Runs `body` with no queue marked on this thread (a queue's block run synchronously by a
    /// caller that holds another queue on its thread).
    static func outside<T>(_ body: () throws -> T) rethrows -> T {
        let previous = current
        guard previous != nil else { return try body() }
        current = nil
        defer { current = previous }
        return try body()
    }
}

/// A plain mutex held across a block's run (`Mutex` from Synchronization takes a closure
/// whose result must be `sending`, which a generic block's result is not).
private final class QueueGate: @unchecked Sendable {  // safe: the pthread mutex is the synchronisation
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func tryLock() -> Bool { pthread_mutex_trylock(mutex) == 0 }
    func unlock() { pthread_mutex_unlock(mutex) }
}

/// Carries a value across a queue hop that happens exactly once (a `sending` closure or
/// result handed to `DispatchQueue.async`).
struct Transfer<Value>: @unchecked Sendable {  // safe: the value is used by one side only, after the hop
    var value: Value
}

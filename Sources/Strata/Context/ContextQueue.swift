import Dispatch
import Synchronization

/// The serial queue a context runs on, and how to tell whether the current code is on it.
///
/// "Am I on the main queue?" is asked of the queue (a queue-specific key), never of the
/// thread: on Linux an async `main` and Swift Testing run the main queue on worker threads.
final class ContextQueue: Sendable {
    let queue: DispatchQueue
    private let token: Token

    /// A marker stored as the queue's specific value.
    final class Token: Sendable {}

    private static let key = DispatchSpecificKey<Token>()
    private static let mainToken: Token = {
        let token = Token()
        DispatchQueue.main.setSpecific(key: key, value: token)
        return token
    }()

    /// The main queue (shared by every main-queue context).
    static func main() -> ContextQueue { ContextQueue(queue: .main, token: mainToken) }

    /// A new private serial queue.
    static func makePrivate(label: String) -> ContextQueue {
        let queue = DispatchQueue(label: label)
        let token = Token()
        queue.setSpecific(key: key, value: token)
        return ContextQueue(queue: queue, token: token)
    }

    private init(queue: DispatchQueue, token: Token) {
        self.queue = queue
        self.token = token
    }

    /// Whether the calling code runs on this queue.
    var isCurrent: Bool { DispatchQueue.getSpecific(key: Self.key) === token }

    /// Whether the calling code runs on the main queue.
    static var isMain: Bool { DispatchQueue.getSpecific(key: key) === mainToken }

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

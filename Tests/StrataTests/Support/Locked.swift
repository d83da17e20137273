import Foundation

/// A value behind a lock, shareable across threads and observer callbacks.
///
/// It uses `NSLock` (a pthread mutex) rather than `Synchronization.Mutex` on purpose:
/// ThreadSanitizer understands pthread mutexes, but here (Swift 6.3, Linux) it does not see
/// `Mutex`'s lock and unlock as synchronisation: a `scripts/tsan.sh --short` run reported 34
/// races, every one on state accessed only inside `Mutex.withLock` (false positives that
/// would drown real reports).
final class Locked<Value: Sendable>: @unchecked Sendable {  // safe: `value` is only touched under `lock`
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

import Foundation

/// A value behind an `NSLock` (a pthread mutex): `Mutex`'s job, for state that many threads
/// contend for and that ThreadSanitizer must see guarded. On Linux TSan does not take
/// Synchronization's futex-based `Mutex` as ordering, so it reports every contended access
/// behind one as a race (the row cache's were 361 reports in one CI run).
///
/// For example:
/// ```swift
/// let hits = Locked(0)
/// hits.withLock { $0 += 1 }
/// ```
final class Locked<Value>: @unchecked Sendable {  // safe: `value` is only touched while `lock` is held
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value while holding the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

import Foundation

/// A value behind an `NSLock`: this target's copy of `Strata`'s `Locked` (it does not depend
/// on `Strata`, and Package.swift stays as it is), for the same reason: on Linux
/// ThreadSanitizer does not see Synchronization's `Mutex` and reports what it guards as races.
///
/// For example:
/// ```swift
/// let requests = Locked(0)
/// requests.withLock { $0 += 1 }
/// ```
final class Locked<Value>: @unchecked Sendable {  // safe: `value` is only touched while `lock` is held
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value while holding the lock; `body` must not take this lock again.
    func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

import Foundation

/// A value behind an `NSLock` (a pthread mutex): `Mutex`'s job, for state that many threads
/// contend for and that ThreadSanitizer must see guarded. On Linux TSan does not take
/// Synchronization's futex-based `Mutex` as ordering, so it reports every contended access
/// behind one as a race (the row cache's were 361 reports in one CI run). Every lock of the
/// package's modules, its Sandbox and its tests is one of these, shared from `Strata`
/// (`package` access); `Atomic` stays for single counters and flags.
///
/// Unlike `Mutex` it is a class: a `let` of it can be captured by escaping closures and held
/// in copyable types, and every holder shares the one value.
///
/// For example:
/// ```swift
/// let hits = Locked(0)
/// hits.withLock { $0 += 1 }
/// ```
package final class Locked<Value>: @unchecked Sendable {  // safe: `value` is only touched while `lock` is held
    private let lock = NSLock()
    private var value: Value

    /// A lock guarding `value`.
    package init(_ value: Value) { self.value = value }

    /// Runs `body` with the value while holding the lock; `body` must not take this lock again.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

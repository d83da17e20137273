import Dispatch
import Foundation
@testable import Strata   // `Locked`

/// Collects failures from threads and queues of a scripted interleaving, and bounds every
/// wait: a wait longer than `limit` is recorded as a deadlock and stops the script.
///
/// Failures are recorded here (from any thread) and asserted by the test body afterwards,
/// so that a stuck queue cannot keep the test from reporting.
final class Watchdog: Sendable {
    /// How long any single wait may take before it counts as a deadlock.
    let limit: TimeInterval
    private let state = Locked<[String]>([])

    init(limit: TimeInterval = 5) { self.limit = limit }

    /// Every failure recorded so far.
    var failures: [String] { state.withLock { $0 } }
    /// Whether the script must stop (something failed).
    var hasFailed: Bool { state.withLock { !$0.isEmpty } }

    /// Records a failure.
    func fail(_ message: String) { state.withLock { $0.append(message) } }

    /// Records a failure unless `condition` holds; returns `condition`.
    @discardableResult
    func check(_ condition: Bool, _ message: @autoclosure () -> String) -> Bool {
        if !condition { fail(message()) }
        return condition
    }

    /// Waits for `semaphore`; on timeout records a deadlock at `step` and returns false.
    func wait(_ semaphore: DispatchSemaphore, _ step: @autoclosure () -> String) -> Bool {
        if semaphore.wait(timeout: .now() + limit) == .success { return true }
        fail("deadlock: waited more than \(limit) s for \(step())")
        return false
    }

    /// Runs `body` on a fresh global-queue thread and resumes when it returns, so that the
    /// blocking waits of a script never occupy Swift's cooperative thread pool.
    static func runBlocking(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                body()
                continuation.resume()
            }
        }
    }
}

/// A count a long test runs: the environment variable `variable` if it is set to a positive
/// number, else `defaultCount`. Each kind of count has its own variable
/// (`STRATA_DEADLOCK_ITERATIONS`, `STRATA_STRESS_STEPS`; see scripts/tsan.sh), so a run that
/// shortens one never lengthens another.
func iterationCount(_ variable: String, default defaultCount: Int) -> Int {
    if let text = ProcessInfo.processInfo.environment[variable], let count = Int(text), count > 0 { return count }
    return defaultCount
}

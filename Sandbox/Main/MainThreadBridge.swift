import Foundation
import Strata

/// Runs async work from a synchronous `main`: the work runs in a task while the main thread
/// runs its run loop (which also drains the main dispatch queue) until the work is done.
///
/// For example:
/// ```swift
/// try MainThreadBridge.run { try await SandboxRunner(options: options).run() }
/// ```
enum MainThreadBridge {
    /// Runs `work` to completion; rethrows its error.
    static func run(_ work: @escaping @Sendable () async throws -> Void) throws {
        let outcome = Locked<Result<Void, any Error>?>(nil)
        Task {
            let result: Result<Void, any Error>
            do { try await work(); result = .success(()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            DispatchQueue.main.async {}   // wakes the run loop so it sees the outcome
        }
        while true {
            if let result = outcome.withLock({ $0 }) { return try result.get() }
            _ = RunLoop.main.run(mode: .default, before: Date(timeIntervalSinceNow: 0.05))
        }
    }
}

import Foundation

/// A root context's save whose SQLite work runs off the context's queue
/// (``ObjectContext/saveInBackground()``): the change batch going down, and the store's answer
/// coming back.
///
/// The store's work runs on a global queue and leaves its result here. The context's queue
/// either awaits it (``written()``, suspending) or, when the context is used before the
/// answer came, waits for it (``result()``, blocking): either way the queue applies it once.
///
/// For example (inside the engine):
/// ```swift
/// let flight = SaveInFlight(batch: batch)
/// flight.start { try coordinator.save(batch, policy: policy, origin: origin) { _ in false } }
/// await flight.written()
/// ```
final class SaveInFlight: @unchecked Sendable {  // safe: `answer` and `waiter` are touched only while `condition` is locked; `batch` is immutable
    /// What the store answered: the outcome and the change set made from it, or the error.
    typealias Answer = Result<(outcome: SaveOutcome, changes: ChangeSet), StrataError>

    /// The changes being written.
    let batch: ChangeBatch
    private let condition = NSCondition()
    private var answer: Answer?
    private var waiter: CheckedContinuation<Void, Never>?

    init(batch: ChangeBatch) {
        self.batch = batch
    }

    /// Runs `write` on a global queue and keeps its answer.
    func start(_ write: @escaping @Sendable () throws(StrataError) -> SaveOutcome) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let answer: Answer
            do throws(StrataError) {
                let outcome = try write()
                answer = .success((outcome, outcome.changeSet(for: batch)))
            } catch {
                answer = .failure(error)
            }
            condition.lock()
            self.answer = answer
            let waiter = self.waiter
            self.waiter = nil
            condition.broadcast()
            condition.unlock()
            waiter?.resume()
        }
    }

    /// Suspends until the store answered.
    func written() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            if answer == nil {
                waiter = continuation
                condition.unlock()
            } else {
                condition.unlock()
                continuation.resume()
            }
        }
    }

    /// The store's answer, blocking the calling thread until it came.
    func result() -> Answer {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let answer { return answer }
            condition.wait()
        }
    }
}

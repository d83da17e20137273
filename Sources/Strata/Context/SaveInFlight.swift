import Foundation

/// A save whose work after its change batch runs off the context's queue
/// (``ObjectContext/saveInBackground()``): the change batch going down, and the answer coming
/// back. For a root context the work is the store's transaction and the change set made from
/// it; for a child of a private-queue parent, the change set of the push, which the queue
/// then hands to the parent with the batch (and the `rows` read for it).
///
/// The work runs on a global queue and leaves its result here. The context's queue
/// either awaits it (``written()``, suspending) or, when the context is used before the
/// answer came, waits for it (``result()``, blocking): either way the queue applies it once.
///
/// For example (inside the engine):
/// ```swift
/// let flight = SaveInFlight(batch: batch)
/// flight.start {
///     let outcome = try coordinator.save(batch, policy: policy, origin: origin) { _ in false }
///     return (outcome, outcome.changeSet(for: batch))
/// }
/// await flight.written()
/// ```
final class SaveInFlight: @unchecked Sendable {  // safe: `answer` and `waiter` are touched only while `condition` is locked; `batch` is immutable
    /// What the work answered: the store's outcome (none for a push) and the change set, or
    /// the error.
    typealias Answer = Result<(outcome: SaveOutcome?, changes: ChangeSet), StrataError>

    /// The changes being saved.
    let batch: ChangeBatch
    /// For a push, the rows that go to the parent with the batch.
    let rows: PushRows?
    private let condition = NSCondition()
    private var answer: Answer?
    private var waiter: CheckedContinuation<Void, Never>?

    init(batch: ChangeBatch, rows: PushRows? = nil) {
        self.batch = batch
        self.rows = rows
    }

    /// Runs `work` on a global queue and keeps its answer.
    ///
    /// A global queue, not a serial queue of the flight's own: a serial queue's block waits
    /// for a thread to be woken for it, and a context that needs the answer waits through
    /// that (main busy in the Sandbox's import on mainContext went from 22–23 % to 26–32 %,
    /// measured 2026-11-30). The global queues share a pool of about one thread per core, so
    /// a flight can wait for a thread while others block; ``result()`` blocks the caller too
    /// (concurrency.md, rule 3, says not to hold a store's lock from another connection while
    /// using the context).
    func start(_ work: @escaping @Sendable () throws(StrataError) -> (outcome: SaveOutcome?, changes: ChangeSet)) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            let answer: Answer
            do throws(StrataError) {
                answer = .success(try work())
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

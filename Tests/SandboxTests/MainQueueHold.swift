import Dispatch

/// Runs `body` as one block on the main queue (a stand-in for one long block of UI work): no
/// other main-queue work — a heartbeat's beat, say — runs until it returns.
///
/// The whole held stretch is inside the block, so nothing waits across queues while main is
/// held: a hold released by the test from elsewhere could deadlock when parallel tests occupy
/// every cooperative thread waiting for the main queue.
///
/// For example:
/// ```swift
/// let summary = await onMainQueue { clock.advance(milliseconds: 120); return heartbeat.stop() }
/// ```
func onMainQueue<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (done: CheckedContinuation<T, Never>) in
        DispatchQueue.main.async { done.resume(returning: body()) }
    }
}

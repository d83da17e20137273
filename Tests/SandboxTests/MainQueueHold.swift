import Dispatch

/// Holds the main queue until released (a stand-in for one long block of UI work).
///
/// For example:
/// ```swift
/// let hold = MainQueueHold()
/// await hold.begin()   // returns once the main queue runs the hold
/// hold.end()
/// ```
final class MainQueueHold: Sendable {
    private let release = DispatchSemaphore(value: 0)

    /// Puts the hold on the main queue and returns once it runs there (the main queue is then
    /// blocked until ``end()``).
    func begin() async {
        await withCheckedContinuation { (started: CheckedContinuation<Void, Never>) in
            DispatchQueue.main.async { [release] in
                started.resume()
                release.wait()
            }
        }
    }

    /// Lets the main queue go on.
    func end() { release.signal() }
}

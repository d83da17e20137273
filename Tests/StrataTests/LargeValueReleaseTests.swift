import Dispatch
import Testing
@testable import Strata

/// A main-queue save's large change batch and change set are freed on a utility queue; small
/// ones, and those of other queues, where they are, before `release` returns.
@Suite struct LargeValueReleaseTests {
    /// Where a witness was freed: on the main queue or not, and before `release` returned.
    struct Freed: Equatable {
        var onMain: Bool
        var beforeReturn: Bool
    }

    /// Records where the last reference to it was dropped.
    final class Witness: Sendable {
        let state: Locked<(returned: Bool, freed: Freed?)>
        let done: DispatchSemaphore
        init(_ state: Locked<(returned: Bool, freed: Freed?)>, _ done: DispatchSemaphore) {
            self.state = state
            self.done = done
        }
        deinit {
            let onMain = MainQueue.isCurrent
            state.withLock { $0.freed = Freed(onMain: onMain, beforeReturn: !$0.returned) }
            done.signal()
        }
    }

    /// Releases a witness of `changes` changes on `queue` while the utility queue is held back,
    /// then lets it go and waits until the witness is freed.
    func release(changes: Int, on queue: DispatchQueue) -> Freed? {
        let state = Locked<(returned: Bool, freed: Freed?)>((false, nil))
        let done = DispatchSemaphore(value: 0)
        LargeValueRelease.queue.suspend()
        queue.async {
            LargeValueRelease.release(Witness(state, done), changes: changes)
            state.withLock { $0.returned = true }
            LargeValueRelease.queue.resume()
        }
        guard done.wait(timeout: .now() + 30) == .success else { return nil }
        return state.withLock { $0.freed }
    }

    @Test func aMainQueueSavesManyChangesAreFreedOffItLater() {
        #expect(release(changes: LargeValueRelease.threshold, on: .main) == Freed(onMain: false, beforeReturn: false))
    }

    @Test func aMainQueueSavesFewChangesAreFreedThereAtOnce() {
        #expect(release(changes: LargeValueRelease.threshold - 1, on: .main) == Freed(onMain: true, beforeReturn: true))
    }

    @Test func anotherQueuesManyChangesAreFreedThereAtOnce() {
        #expect(release(changes: LargeValueRelease.threshold, on: DispatchQueue(label: "saver")) == Freed(onMain: false, beforeReturn: true))
    }
}

import Foundation
import Strata
import StrataStacks

/// Reads what the runner measures on the main side of a stack — the main context's busy
/// time plus the fetched list's, merges into main, main-queue writes — and waits for the
/// main side to go quiet after a run (merges into main may trail the last save).
struct MainObserver: Sendable {
    let stack: (any CoreStack)?
    let list: FetchedList
    let clock: MainQueueClock
    let mergeMode: ImportMergeMode

    struct Snapshot {
        var busySeconds: Double
        var merges: Int
        var changeSets: Int
        var mainQueueWrites: Int
    }

    func snapshot() -> Snapshot {
        Snapshot(busySeconds: (stack?.mainContext.busySeconds ?? 0) + clock.seconds,
                 merges: (stack as? HybridStack)?.mergesIntoMain ?? 0,
                 changeSets: list.changeSets,
                 mainQueueWrites: stack?.mainContext.coordinator.mainQueueWrites ?? 0)
    }

    /// Waits until merges, change sets and list refreshes stop moving (at most 10 s).
    func settle() async {
        guard let stack else { return }
        var pause = 20
        if case .coalesced(let milliseconds) = mergeMode { pause = max(pause, milliseconds + 10) }
        let main = stack.mainContext
        let deadline = ContinuousClock.now + .seconds(10)
        var last: (Int, Int)?
        while ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(pause))
            _ = try? await main.perform { () }
            let now = snapshot()
            let current = (now.merges, now.changeSets)
            if let last, last == current, !list.isRefreshPending { return }
            last = current
        }
    }

    /// Objects registered in main now.
    func registeredInMain() async -> Int {
        guard let main = stack?.mainContext else { return 0 }
        return (try? await main.perform { main.registeredObjects.count }) ?? 0
    }

    /// Closes the stack's store connections.
    func close() {
        guard let stack else { return }
        try? stack.mainContext.coordinator.close()
        if let hybrid = stack as? HybridStack { try? hybrid.importCoordinator.close() }
    }
}

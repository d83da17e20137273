import Foundation
import Strata

/// Shows ``StoreCoordinator/hasExternalChanges()`` from the outside: saves once itself and
/// says "own <bool>" (its own save must not count), says "ready", then polls until another
/// process saves and says "external" (or "timeout" after `seconds`).
struct WatchRole {
    let coordinator: StoreCoordinator
    let seconds: Double

    func run() async {
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "watch")
        do {
            try await context.perform {
                let tally = try ProbeModel.sharedTally(in: context)
                tally.label = "watch"
                try context.save()
            }
            emit("own \(try coordinator.hasExternalChanges())")
            emit("ready")
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                if try coordinator.hasExternalChanges() {
                    emit("external")
                    return
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            emit("timeout")
        } catch {
            fail("watch: \(error)", status: 2)
        }
    }
}

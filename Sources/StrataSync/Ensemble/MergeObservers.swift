import Foundation
import Strata

/// The handlers of an ensemble's merged change sets.
final class MergeObservers: Sendable {
    private let handlers = Locked<[UUID: @Sendable (ChangeSet) -> Void]>([:])

    func add(_ handler: @escaping @Sendable (ChangeSet) -> Void) -> ChangeObservation {
        let id = UUID()
        handlers.withLock { $0[id] = handler }
        return ChangeObservation { [weak self] in _ = self?.handlers.withLock { $0.removeValue(forKey: id) } }
    }

    func publish(_ changes: ChangeSet) {
        for handler in handlers.withLock({ Array($0.values) }) { handler(changes) }
    }
}

import Foundation
import Synchronization

/// The changes a save is about to write, with the values before and after: what sync and
/// auditing need. Handed to will-save observers on the context's queue.
///
/// For example:
/// ```swift
/// let token = context.observeWillSave { pending in
///     for (id, keys) in pending.updated { print(id, keys["title"]?.old ?? .null, "→", keys["title"]?.new ?? .null) }
/// }
/// ```
public struct PendingChanges: Sendable {
    /// A value before and after the save.
    public struct ValueChange: Sendable, Hashable {
        public var old: PropertyValue
        public var new: PropertyValue
    }

    /// Inserted objects with all their values.
    public var inserted: [ObjectID: [String: PropertyValue]]
    /// Updated objects with each changed key's old and new value.
    public var updated: [ObjectID: [String: ValueChange]]
    /// Deleted objects with their last saved values.
    public var deleted: [ObjectID: [String: PropertyValue]]
}

/// A registration that ends when cancelled or dropped.
///
/// For example:
/// ```swift
/// let token = context.observeChanges { changes in print(changes) }
/// token.cancel()
/// ```
public final class ChangeObservation: Sendable {
    private let onCancel: @Sendable () -> Void
    init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
    /// Stops the observation.
    public func cancel() { onCancel() }
    deinit { onCancel() }
}

/// A context's observers. Handlers are called on the context's queue.
final class ContextObservers: Sendable {
    private let changeHandlers = Mutex<[UUID: @Sendable (ChangeSet) -> Void]>([:])
    private let willSaveHandlers = Mutex<[UUID: @Sendable (PendingChanges) -> Void]>([:])

    func addChangeHandler(_ handler: @escaping @Sendable (ChangeSet) -> Void) -> ChangeObservation {
        let id = UUID()
        changeHandlers.withLock { $0[id] = handler }
        return ChangeObservation { [weak self] in _ = self?.changeHandlers.withLock { $0.removeValue(forKey: id) } }
    }

    func addWillSaveHandler(_ handler: @escaping @Sendable (PendingChanges) -> Void) -> ChangeObservation {
        let id = UUID()
        willSaveHandlers.withLock { $0[id] = handler }
        return ChangeObservation { [weak self] in _ = self?.willSaveHandlers.withLock { $0.removeValue(forKey: id) } }
    }

    var wantsWillSave: Bool { willSaveHandlers.withLock { !$0.isEmpty } }

    func publish(_ changes: ChangeSet) {
        for handler in changeHandlers.withLock({ Array($0.values) }) { handler(changes) }
    }

    func publishWillSave(_ pending: PendingChanges) {
        for handler in willSaveHandlers.withLock({ Array($0.values) }) { handler(pending) }
    }
}

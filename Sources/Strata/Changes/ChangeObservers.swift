import Foundation

/// A registration that ends when cancelled or dropped.
///
/// For example:
/// ```swift
/// let token = context.observeChanges { changes in print(changes) }
/// token.cancel()
/// ```
public final class ChangeObservation: Sendable {
    private let onCancel: @Sendable () -> Void
    /// A registration that calls `onCancel` once cancelled or dropped (for libraries that
    /// keep their own observers, as `StrataSync`'s ensemble does).
    ///
    /// ```swift
    /// let token = ChangeObservation { handlers.remove(id) }
    /// ```
    public init(onCancel: @escaping @Sendable () -> Void) { self.onCancel = onCancel }
    /// Stops the observation.
    public func cancel() { onCancel() }
    deinit { onCancel() }
}

/// Observers of change sets (a context's, or every save through a coordinator) and of the
/// batches saves are about to write. Handlers run on the thread that publishes.
final class ChangeObservers: Sendable {
    private let changeHandlers = Locked<[UUID: @Sendable (ChangeSet) -> Void]>([:])
    private let willSaveHandlers = Locked<[UUID: @Sendable (ChangeBatch) -> Void]>([:])

    /// Adds a handler; `id` names it for ``publish(_:skipping:)``.
    func addChangeHandler(id: UUID = UUID(), _ handler: @escaping @Sendable (ChangeSet) -> Void) -> ChangeObservation {
        changeHandlers.withLock { $0[id] = handler }
        return ChangeObservation { [weak self] in _ = self?.changeHandlers.withLock { $0.removeValue(forKey: id) } }
    }

    func addWillSaveHandler(_ handler: @escaping @Sendable (ChangeBatch) -> Void) -> ChangeObservation {
        let id = UUID()
        willSaveHandlers.withLock { $0[id] = handler }
        return ChangeObservation { [weak self] in _ = self?.willSaveHandlers.withLock { $0.removeValue(forKey: id) } }
    }

    /// Calls every change handler but the one named `skipped`.
    func publish(_ changes: ChangeSet, skipping skipped: UUID? = nil) {
        let handlers = changeHandlers.withLock { handlers in handlers.compactMap { $0.key == skipped ? nil : $0.value } }
        for handler in handlers { handler(changes) }
    }

    func publishWillSave(_ batch: ChangeBatch) {
        let handlers = willSaveHandlers.withLock { $0.isEmpty ? [] : Array($0.values) }
        for handler in handlers { handler(batch) }
    }
}

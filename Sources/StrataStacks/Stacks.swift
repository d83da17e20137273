public import Foundation
public import Strata

/// Opens stacks.
///
/// For example:
/// ```swift
/// let stack = try await Stacks.open(.asyncSaving, model: model, storeURL: url)
/// ```
public enum Stacks {
    /// Opens (creating if needed) the store at `storeURL` and wires contexts as `kind` says.
    /// The store is opened off the calling thread, so this never blocks the main queue.
    public static func open(_ kind: StackKind, model: ObjectModel, storeURL: URL, options: StackOptions = StackOptions()) async throws -> any CoreStack {
        let coordinator = try await StoreCoordinator(model: model, store: .sqlite(storeURL, options: options.storeOptions))
        switch kind {
        case .mainContext:
            return MainContextStack(coordinator: coordinator, mergePolicy: options.mergePolicy)
        case .asyncSaving:
            return AsyncSavingStack(coordinator: coordinator, mergePolicy: options.mergePolicy)
        case .hybrid:
            let importCoordinator = try await StoreCoordinator(model: model, store: .sqlite(storeURL, options: options.storeOptions))
            return HybridStack(coordinator: coordinator, importCoordinator: importCoordinator, options: options)
        }
    }
}

extension ObjectContext {
    /// A context whose saves go nowhere: a child of a throwaway child of `self`.
    func makeTemporaryChild() -> ObjectContext {
        let sink = ObjectContext(.privateQueue, parent: self, name: "temporary sink")
        return ObjectContext(.privateQueue, parent: sink, name: "temporary")
    }

    /// An editor: a child that, when auto-updating, merges what its parent publishes and
    /// keeps its own unsaved edits.
    func makeEditor(autoUpdating: Bool) -> ObjectContext {
        let editor = ObjectContext(.privateQueue, parent: self, name: "editor", mergePolicy: autoUpdating ? .mergeByPropertyObjectTrump : .error)
        if autoUpdating { editor.performAndWait { editor.automaticallyMergesChangesFromParent = true } }
        return editor
    }
}

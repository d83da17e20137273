public import Strata

/// The classic single-context stack: one main-queue context directly on the coordinator.
/// Simple and always consistent, but background and import contexts are children of main, so
/// their saves pass through it. The stack's ``save()`` prepares main's changes on the main
/// queue and writes them to SQLite on another thread (`ObjectContext.saveInBackground()`);
/// `mainContext.save()` called directly writes on the main queue, as Core Data's does.
///
/// For example:
/// ```swift
/// let stack = try await Stacks.open(.mainContext, model: model, storeURL: url)
/// try await stack.save()
/// ```
public final class MainContextStack: CoreStack {
    public let kind = StackKind.mainContext
    public let mainContext: ObjectContext
    /// The coordinator of the store.
    public let coordinator: StoreCoordinator

    init(coordinator: StoreCoordinator, mergePolicy: MergePolicy) {
        self.coordinator = coordinator
        self.mainContext = ObjectContext(.mainQueue, coordinator: coordinator, name: "main", mergePolicy: mergePolicy)
    }

    public func newBackgroundContext() -> ObjectContext { ObjectContext(.privateQueue, parent: mainContext, name: "background") }
    public func newImportContext() -> ObjectContext { ObjectContext(.privateQueue, parent: mainContext, name: "import") }
    public func newEditorContext(autoUpdating: Bool) -> ObjectContext { mainContext.makeEditor(autoUpdating: autoUpdating) }
    public func newTemporaryContext() -> ObjectContext { mainContext.makeTemporaryChild() }

    /// Saves main to disk: its changes are gathered on the main queue and written to SQLite
    /// on another thread, so the main queue stays free during the write.
    public func save() async throws {
        try await mainContext.saveInBackground()
    }

    public func mergeChangesSavedElsewhere(_ changes: ChangeSet) async {
        let main = mainContext
        for piece in changes.pieces(of: HybridStack.mainMergePiece) { _ = try? await main.perform { main.merge(piece) } }
    }
}

public import Strata

/// The classic single-context stack: one main-queue context directly on the coordinator.
/// Simple and always consistent, but every save writes SQLite on the main queue, and
/// background and import contexts are children of main, so their saves pass through it.
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

    /// Saves main to disk, on the main queue.
    public func save() async throws {
        let main = mainContext
        try await main.perform { try main.save() }
    }

    public func mergeChangesSavedElsewhere(_ changes: ChangeSet) async {
        let main = mainContext
        for piece in changes.pieces(of: HybridStack.mainMergePiece) { _ = try? await main.perform { main.merge(piece) } }
    }
}

public import Strata

/// Marcus Zarra's stack: a private writer context owns the coordinator; the main context is
/// its child and the single source of truth for the UI; background, import and editor
/// contexts are children of main. Saving main is an in-memory push; the writer then writes
/// to disk on its own queue, so no SQLite write runs on the main queue. Children's saves
/// still pass through main.
///
/// For example:
/// ```swift
/// let stack = try await Stacks.open(.asyncSaving, model: model, storeURL: url)
/// ```
public final class AsyncSavingStack: CoreStack {
    public let kind = StackKind.asyncSaving
    public var mainContext: ObjectContext { contexts.main }
    /// The private context that writes to disk.
    public var writerContext: ObjectContext { contexts.writer }
    /// The coordinator of the store.
    public let coordinator: StoreCoordinator
    private let contexts: WriterAndMain

    init(coordinator: StoreCoordinator, mergePolicy: MergePolicy) {
        self.coordinator = coordinator
        self.contexts = WriterAndMain(coordinator: coordinator, mergePolicy: mergePolicy)
    }

    public func newBackgroundContext() -> ObjectContext { ObjectContext(.privateQueue, parent: mainContext, name: "background") }
    public func newImportContext() -> ObjectContext { ObjectContext(.privateQueue, parent: mainContext, name: "import") }
    public func newEditorContext(autoUpdating: Bool) -> ObjectContext { mainContext.makeEditor(autoUpdating: autoUpdating) }
    public func newTemporaryContext() -> ObjectContext { mainContext.makeTemporaryChild() }

    /// Pushes main into the writer (in memory, on the main queue), then writes on the writer's queue.
    public func save() async throws { try await contexts.save() }

    public func mergeChangesSavedElsewhere(_ changes: ChangeSet) async { await contexts.merge(changes) }
}

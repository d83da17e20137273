import Dispatch
public import Strata
import Synchronization

/// The writer → main pair of ``AsyncSavingStack``, plus a second coordinator (its own
/// SQLite connection on the same WAL file) for import contexts, whose saves go straight to
/// disk without passing through main. Their change sets are then merged into the writer and
/// into main — touching only objects main already holds — every save, coalesced, or not at
/// all (notify only, the UI refetches). Editors are root contexts on the import coordinator
/// too: committing one writes on its own queue, and main takes the result in pieces, like an
/// import's (see ``newEditorContext(autoUpdating:)``).
///
/// For example:
/// ```swift
/// var options = StackOptions()
/// options.importMergeMode = .coalesced(milliseconds: 100)
/// let stack = try await Stacks.open(.hybrid, model: model, storeURL: url, options: options)
/// ```
public final class HybridStack: CoreStack {
    public let kind = StackKind.hybrid
    public var mainContext: ObjectContext { contexts.main }
    /// The private context that writes main's changes to disk.
    public var writerContext: ObjectContext { contexts.writer }
    /// The coordinator of main and the writer.
    public let coordinator: StoreCoordinator
    /// The coordinator of import contexts (same file, own connection).
    public let importCoordinator: StoreCoordinator
    /// How import saves reach main.
    public let importMergeMode: ImportMergeMode

    private let contexts: WriterAndMain
    private let onImport: (@Sendable (ChangeSet) -> Void)?
    private let mergePolicy: MergePolicy
    private let pending = Locked<(changes: ChangeSet?, flushScheduled: Bool)>((nil, false))
    private let merges = Atomic<Int>(0)
    private let observation = Locked<[ChangeObservation]>([])
    /// Auto-updating editors, which also follow saves through main's coordinator.
    private let followers = Locked<[WeakEditor]>([])
    /// Deliveries run one after another, in the order the imports saved.
    private let deliveryQueue = DispatchQueue(label: "strata.hybrid.import-delivery")
    /// Change sets waiting for delivery (merged into one), and whether a delivery is under way.
    private let backlog = Locked<(changes: ChangeSet?, draining: Bool)>((nil, false))

    /// How many times import changes were merged into main.
    public var mergesIntoMain: Int { merges.load(ordering: .relaxed) }

    init(coordinator: StoreCoordinator, importCoordinator: StoreCoordinator, options: StackOptions) {
        self.coordinator = coordinator
        self.importCoordinator = importCoordinator
        self.importMergeMode = options.importMergeMode
        self.onImport = options.onImport
        self.mergePolicy = options.mergePolicy
        self.contexts = WriterAndMain(coordinator: coordinator, mergePolicy: options.mergePolicy)
        let imports = importCoordinator.observeSaves { [weak self] changes in self?.importDidSave(changes) }
        let saves = coordinator.observeSaves { [weak self] changes in self?.forwardToEditors(changes) }
        observation.withLock { $0 = [imports, saves] }
    }

    public func newBackgroundContext() -> ObjectContext { ObjectContext(.privateQueue, parent: mainContext, name: "background") }
    public func newImportContext() -> ObjectContext { ObjectContext(.privateQueue, coordinator: importCoordinator, name: "import", mergePolicy: mergePolicy) }
    /// A scratch pad over the store: a private root context on the import coordinator. Its
    /// save is the commit: it writes on the editor's own queue and main merges the change set
    /// in pieces, as it does an import's, so committing a large edit never holds the main
    /// queue. Unlike the other stacks' editors it reads what is saved, not main's unsaved
    /// changes (in this stack the UI edits through editors, and main rarely holds any), and a
    /// row changed underneath it since it read it is a conflict its merge policy settles
    /// (`.error` for a plain editor, `.mergeByPropertyObjectTrump` for an auto-updating one,
    /// which follows every save to the file and keeps its own unsaved edits).
    public func newEditorContext(autoUpdating: Bool) -> ObjectContext {
        let editor = ObjectContext(.privateQueue, coordinator: importCoordinator, name: "editor",
                                   mergePolicy: autoUpdating ? .mergeByPropertyObjectTrump : .error)
        guard autoUpdating else { return editor }
        editor.performAndWait { editor.automaticallyMergesChangesFromParent = true }   // saves on its own coordinator
        followers.withLock { list in
            list.removeAll { $0.context == nil }
            list.append(WeakEditor(context: editor))
        }
        return editor
    }
    public func newTemporaryContext() -> ObjectContext { mainContext.makeTemporaryChild() }

    /// Pushes main into the writer (in memory, on the main queue), then writes on the writer's queue.
    public func save() async throws { try await contexts.save() }

    public func mergeChangesSavedElsewhere(_ changes: ChangeSet) async { await contexts.merge(changes) }

    /// A save through main's coordinator (main's, through the writer): auto-updating editors
    /// follow it, as they follow saves on their own coordinator.
    private func forwardToEditors(_ changes: ChangeSet) {
        let editors = followers.withLock { list -> [ObjectContext] in
            list.removeAll { $0.context == nil }
            return list.compactMap(\.context)
        }
        guard !editors.isEmpty else { return }
        // In save order, on the delivery queue (waiting there blocks only that queue).
        deliveryQueue.async { for editor in editors { editor.performAndWait { editor.merge(changes) } } }
    }

    /// An import context saved: bring the writer and main up to date as the mode says.
    private func importDidSave(_ changes: ChangeSet) {
        switch importMergeMode {
        case .everySave:
            deliver(changes)
        case .notifyOnly:
            deliver(changes)
        case .coalesced(let milliseconds):
            let schedule = pending.withLock { state -> Bool in
                state.changes = state.changes.map { $0.merging(changes) } ?? changes
                if state.flushScheduled { return false }
                state.flushScheduled = true
                return true
            }
            if schedule {
                DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [weak self] in self?.flush() }
            }
        }
    }

    private func flush() {
        let changes = pending.withLock { state -> ChangeSet? in
            defer { state = (nil, false) }
            return state.changes
        }
        if let changes { deliver(changes) }
    }

    /// The most objects one turn of the main queue merges.
    static let mainMergePiece = 1_000

    /// Queues `changes` for the writer and main. Change sets that arrive while an earlier
    /// delivery is still under way wait and go together, as one merged change set: a burst
    /// of small saves (one object each, thousands a second) costs main one merge and one
    /// change-set notification per delivery it has time for, not one per save, and a lone
    /// save is delivered at once.
    private func deliver(_ changes: ChangeSet) {
        let start = backlog.withLock { state -> Bool in
            state.changes = state.changes.map { $0.merging(changes) } ?? changes
            if state.draining { return false }
            state.draining = true
            return true
        }
        if start { deliveryQueue.async { [self] in drainBacklog() } }
    }

    /// Delivers the backlog until it is empty: into the writer first (so main's faults never
    /// read stale rows through it), then into main (or, notify-only, tells the UI on the main
    /// queue).
    private func drainBacklog() {
        let writer = writerContext, main = mainContext, mode = importMergeMode, onImport = self.onImport
        while let changes = backlog.withLock({ state -> ChangeSet? in
            defer { state.changes = nil }
            if state.changes == nil { state.draining = false }
            return state.changes
        }) {
            // Waiting here blocks only this delivery queue; neither context ever waits on it.
            writer.performAndWait { writer.merge(changes) }
            if mode == .notifyOnly {
                if let onImport { DispatchQueue.main.async { onImport(changes) } }
            } else {
                // In pieces, so a large import or sync never holds the main queue for long.
                for piece in changes.pieces(of: Self.mainMergePiece) { main.performAndWait { main.merge(piece) } }
                merges.add(1, ordering: .relaxed)
            }
        }
    }
}

/// An auto-updating editor, held weakly: the stack forwards saves to it while it lives.
private struct WeakEditor {
    weak var context: ObjectContext?
}

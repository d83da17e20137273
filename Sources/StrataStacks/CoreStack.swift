public import Strata

/// A way of wiring contexts over one store. Pick one at init; the rest of the app talks to
/// this protocol and does not change when you swap stacks.
///
/// For example:
/// ```swift
/// let stack = try await Stacks.open(.hybrid, model: model, storeURL: url)
/// let importer = stack.newImportContext()
/// try await importer.perform { /* insert… */ try importer.save() }
/// let titles = try await stack.mainContext.perform { try stack.mainContext.fetch(FetchRequest<Note>()).map(\.title) }
/// ```
public protocol CoreStack: AnyObject, Sendable {
    /// Which wiring this is.
    var kind: StackKind { get }
    /// The main-queue context, for the UI.
    var mainContext: ObjectContext { get }
    /// A private-queue context for general background work; its saves reach the store
    /// through ``save()`` (or directly, depending on the stack).
    func newBackgroundContext() -> ObjectContext
    /// A private-queue context for bulk imports; saving it makes the import durable.
    func newImportContext() -> ObjectContext
    /// A scratch pad: save it to commit, drop it to discard. With `autoUpdating`, it follows
    /// saves made elsewhere while keeping its own unsaved edits. In most stacks it is a child
    /// of main and its save goes into main; ``HybridStack`` commits it straight to disk and
    /// merges the result into main (see its ``HybridStack/newEditorContext(autoUpdating:)``).
    func newEditorContext(autoUpdating: Bool) -> ObjectContext
    /// A context whose saves go nowhere (they never reach main or the store).
    func newTemporaryContext() -> ObjectContext
    /// Saves the main context's changes all the way to disk.
    func save() async throws
    /// The coordinator of the main context's store (what a sync engine or a batch request
    /// works on).
    var coordinator: StoreCoordinator { get }
    /// Brings the stack's long-lived contexts (main, and the writer where there is one) up to
    /// date with a save made through another context of ``coordinator`` — a sync engine's
    /// merge, a batch request — so the UI and its fetched results show it. Unsaved edits in
    /// main are kept or dropped per its merge policy.
    ///
    /// For example:
    /// ```swift
    /// let token = ensemble.observeMergedChanges { changes in
    ///     Task { await stack.mergeChangesSavedElsewhere(changes) }
    /// }
    /// ```
    func mergeChangesSavedElsewhere(_ changes: ChangeSet) async
}

/// The stacks Strata offers.
///
/// For example:
/// ```swift
/// for kind in StackKind.allCases { print(kind.rawValue) }
/// ```
public enum StackKind: String, CaseIterable, Sendable {
    /// One main-queue context on the coordinator; the stack's `save()` writes SQLite off the
    /// main queue (`saveInBackground()`), children's saves pass through main.
    case mainContext
    /// A private writer owns the coordinator; main is its child; saves reach disk off the main queue.
    case asyncSaving
    /// The writer and main pair plus a second coordinator for imports that save straight to disk.
    case hybrid
}

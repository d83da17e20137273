import Strata

/// The contexts both writer-backed stacks (``AsyncSavingStack``, ``HybridStack``) are built
/// on: a private writer context that owns the coordinator, and the main context as its child.
/// Saving pushes main into the writer (in memory, on the main queue), then writes on the
/// writer's queue, so no SQLite write runs on the main queue.
struct WriterAndMain: Sendable {
    /// The private context that writes to disk.
    let writer: ObjectContext
    /// The UI's context, the writer's child.
    let main: ObjectContext

    /// A writer on `coordinator` saving with `mergePolicy`, and main under it.
    init(coordinator: StoreCoordinator, mergePolicy: MergePolicy) {
        writer = ObjectContext(.privateQueue, coordinator: coordinator, name: "writer", mergePolicy: mergePolicy)
        main = ObjectContext(.mainQueue, parent: writer, name: "main")
    }

    /// Merges a save made elsewhere on the coordinator into the writer, then into main.
    func merge(_ changes: ChangeSet) async {
        let main = self.main, writer = self.writer
        _ = try? await writer.perform { writer.merge(changes) }
        for piece in changes.pieces(of: HybridStack.mainMergePiece) { _ = try? await main.perform { main.merge(piece) } }
    }

    /// Pushes main into the writer (the push's change set made off the main queue), then
    /// writes the writer to disk.
    func save() async throws {
        let main = self.main, writer = self.writer
        try await main.saveInBackground()
        try await writer.perform { try writer.save() }
    }
}

import Foundation

extension ObjectContext {
    /// Saves like ``save()``, but a root context's SQLite work runs off its queue: the queue
    /// stays free while the store writes. For a main-queue context that saves many changes,
    /// the UI keeps drawing during the write. (A child's push is moved off the queue in part:
    /// below.)
    ///
    /// On the context's queue, before the write: `willSave()`, validation and the change batch,
    /// as ``save()`` does (a validation error is thrown from there and nothing is written).
    /// Then the store writes the batch on another thread. Back on the queue, the objects take
    /// their permanent IDs and versions, `didSave()` runs and the change set goes out.
    ///
    /// While the write runs, the objects can be read as they are. Anything else done with the
    /// context or a saved object first waits for the write and applies the save, on the queue,
    /// so that it runs after the save as it would after ``save()``: changing an object,
    /// inserting, deleting, fetching, firing a fault, merging, a child's save or read, undo.
    /// Only that use waits; a queue that leaves the context alone never does. Until then the
    /// objects are still unsaved (``hasChanges`` is true, and so is each saved object's).
    ///
    /// A child of a private-queue context (main under the writer, in the asyncSaving and
    /// hybrid stacks) pushes the same way: on its queue the batch is made, the change set the push
    /// reports is made on another thread, and back on the queue the batch is handed to the
    /// parent and the objects are saved. A child of a main-queue context has nothing to move
    /// off its queue: its call is ``save()``.
    ///
    /// - Throws: what ``save()`` throws. A save that fails writes nothing and leaves every
    ///   change in place, to be fixed and saved again.
    ///
    /// For example:
    /// ```swift
    /// try await mainContext.saveInBackground()
    /// ```
    public func saveInBackground() async throws(StrataError) {
        guard let flight = try await onQueue(beginSaveInBackground) else { return }
        await flight.written()
        var failure: StrataError?
        // Weakly: the block is freed on the queue after it ran, possibly after this task went
        // on, and must not hold the flight's last reference there.
        do throws(StrataError) { try await onQueue { [weak flight] () throws(StrataError) in if let flight { try self.finish(flight) } } } catch { failure = error }
        // The batch and the change set are freed here, off the context's queue: freeing
        // 20 000 changes there cost main 23–34 M instructions.
        withExtendedLifetime(flight) {}
        if let failure { throw failure }
    }

    /// Runs `body` on the context's queue (``perform(_:)``), keeping its error's type.
    private func onQueue<T: Sendable>(_ body: sending @escaping () throws(StrataError) -> T) async throws(StrataError) -> T {
        let result: Result<T, StrataError>
        do {
            result = try await perform { Result { () throws(StrataError) -> T in try body() } }
        } catch {
            // `perform` rethrows only its block's errors, and this block throws none.
            throw error as? StrataError ?? StrataError(.storeFailure, "The save did not run on the context's queue: \(error)", underlying: error)
        }
        return try result.get()
    }

    /// Waits for the save in flight, if any, and applies it (see ``saveInBackground()``).
    func settleSave() {
        if let flight = saveInFlight { settle(flight) }
    }

    /// The queue's first half of ``saveInBackground()``: prepares the batch, marks the saved
    /// objects and starts the work off the queue. `nil` when nothing goes off the queue.
    /// (Internal, not private: tests start a save with it and use the context in the same block.)
    func beginSaveInBackground() throws(StrataError) -> SaveInFlight? {
        checkQueue()   // (settles an earlier save in flight)
        if let parent, parent.queue.isMain {
            try save()
            return nil
        }
        guard let batch = try prepareSave() else { return nil }
        let flight: SaveInFlight
        if let parent {
            flight = SaveInFlight(batch: batch, rows: rows(pushing: batch, to: parent))
            flight.start { (nil, ObjectContext.changeSet(pushing: batch)) }
        } else {
            flight = SaveInFlight(batch: batch)
            let coordinator = coordinator, policy = mergePolicy, origin = saveOrigin
            let held = heldRows(collidingWith: batch)
            flight.start { () throws(StrataError) -> (outcome: SaveOutcome?, changes: ChangeSet) in
                let outcome = try coordinator.save(batch, policy: policy, origin: origin) { held.contains($0) }
                return (outcome, outcome.changeSet(for: batch))
            }
        }
        markSaving(true)
        saveInFlight = flight
        return flight
    }

    /// The queue's second half: applies the save unless something settled it already, and
    /// throws its error.
    private func finish(_ flight: SaveInFlight) throws(StrataError) {
        settle(flight)
        if case .failure(let error) = flight.result() { throw error }
    }

    /// Waits for `flight`'s answer and, the first time, applies it: the objects are no longer
    /// part of a save in flight, and a written save ends as ``save()`` ends.
    private func settle(_ flight: SaveInFlight) {
        guard saveInFlight === flight else { return }
        let answer = flight.result()
        saveInFlight = nil
        markSaving(false)
        guard case .success(let written) = answer else { return }
        if let outcome = written.outcome {
            didWrite(flight.batch, outcome, written.changes)
        } else if let parent {
            hand(flight.batch, to: parent, rows: flight.rows, changes: written.changes)
        }
    }

    /// Marks every pending object as part of the save in flight (or no longer).
    private func markSaving(_ saving: Bool) {
        for object in pending.inserted { object.lifecycle.isSaving = saving }
        for object in pending.updated { object.lifecycle.isSaving = saving }
        for object in pending.deleted { object.lifecycle.isSaving = saving }
    }

    /// The registered IDs an insert of `batch` could collide with on a unique value (the save
    /// asks whether the context holds such a row; the registry itself stays on the queue).
    /// Empty unless an inserted entity has a unique attribute.
    private func heldRows(collidingWith batch: ChangeBatch) -> Set<ObjectID> {
        var entities: Set<Int> = []
        var last: EntityDescription?
        for change in batch.inserted where change.id.entity !== last {
            last = change.id.entity
            if change.id.entity.attributes.contains(where: \.isUnique) { entities.insert(change.id.entity.index) }
        }
        guard !entities.isEmpty else { return [] }
        return registry.ids(ofEntities: entities)
    }
}

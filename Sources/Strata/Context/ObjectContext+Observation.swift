extension ObjectContext {
    /// Calls `handler` on the context's queue with the change set of every save of this
    /// context and every merge into it. Keep the returned token: dropping it stops the calls.
    ///
    /// For example:
    /// ```swift
    /// let token = context.observeChanges { changes in print(changes.inserted.count) }
    /// ```
    public func observeChanges(_ handler: @escaping @Sendable (ChangeSet) -> Void) -> ChangeObservation {
        observers.addChangeHandler(handler)
    }

    /// The change sets of this context's saves and merges, as an asynchronous sequence. The
    /// sequence ends when the consuming task is cancelled.
    ///
    /// For example:
    /// ```swift
    /// for await changes in context.changeSets() { print(changes) }
    /// ```
    public func changeSets() -> AsyncStream<ChangeSet> {
        let (stream, continuation) = AsyncStream<ChangeSet>.makeStream(bufferingPolicy: .unbounded)
        let token = observers.addChangeHandler { continuation.yield($0) }
        continuation.onTermination = { _ in token.cancel() }
        return stream
    }

    /// Calls `handler` on the context's queue before each save writes (or, for a child, pushes),
    /// with the ``ChangeBatch`` it is about to hand on: values after and before each change
    /// (after `willSave()` hooks and validation).
    ///
    /// For example:
    /// ```swift
    /// let token = context.observeWillSave { batch in
    ///     for change in batch.updated { print(change.id, change.oldValue(forKey: "title"), "→", change.value(forKey: "title")) }
    /// }
    /// ```
    public func observeWillSave(_ handler: @escaping @Sendable (ChangeBatch) -> Void) -> ChangeObservation {
        observers.addWillSaveHandler(handler)
    }

    /// Tells observers, then auto-merging children (except `origin`), about `changes`
    /// (children get `childChanges` when given: a merge passes down only the permanent IDs
    /// that concern them).
    func publish(_ changes: ChangeSet, except origin: ObjectContext? = nil, children childChanges: ChangeSet? = nil) {
        guard !changes.isEmpty || !changes.permanentIDs.isEmpty else { return }
        observers.publish(changes)
        let forChildren = childChanges ?? changes
        guard !forChildren.isEmpty || !forChildren.permanentIDs.isEmpty else { return }
        for child in children.withLock({ $0.compactMap(\.context) }) where child !== origin {
            child.queue.async { child.receiveFromParent(forChildren) }
        }
    }

    /// A change set published by the parent: new permanent IDs always apply; the rest is
    /// merged when the context merges automatically.
    func receiveFromParent(_ changes: ChangeSet) {
        if automaticallyMergesChangesFromParent {
            mergeChanges(changes, fromParent: true)
            return
        }
        _ = noteCommits(of: changes)   // a save of the parent's is a commit this context was told of
        if !changes.permanentIDs.isEmpty {
            catchUpPermanentIDs()
            applyPermanentIDs(changes.permanentIDs)   // a child made after the deposit has none in its inbox
            let idsOnly = ChangeSet(permanentIDs: changes.permanentIDs)
            for child in children.withLock({ $0.compactMap(\.context) }) {
                child.queue.async { child.receiveFromParent(idsOnly) }
            }
        }
    }
}

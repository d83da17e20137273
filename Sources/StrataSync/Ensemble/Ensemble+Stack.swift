public import StrataStacks

extension Ensemble {
    /// The ensemble of a stack's store, delivering every sync's change set to the stack's
    /// main context (and writer) in the order the syncs saved: one line for an app built on
    /// `Stacks.open(...)`. Open the stack with `StackOptions.storeOptions.recordsHistory = true`.
    ///
    /// For example:
    /// ```swift
    /// var options = StackOptions()
    /// options.storeOptions.recordsHistory = true
    /// let stack = try await Stacks.open(.hybrid, model: model, storeURL: url, options: options)
    /// let ensemble = try await Ensemble(identifier: "MainStore", stack: stack, cloudFileSystem: cloud)
    /// try await ensemble.attach()
    /// ```
    public init(identifier: String, stack: any CoreStack, cloudFileSystem: any CloudFileSystem,
                globalIdentifiers: GlobalIdentifiers = .random, options: EnsembleOptions = EnsembleOptions()) async throws(SyncError) {
        try await self.init(identifier: identifier, coordinator: stack.coordinator, cloudFileSystem: cloudFileSystem,
                            globalIdentifiers: globalIdentifiers, options: options)
        let changes = mergedChanges()
        setStackDelivery(Task { [weak stack] in
            for await set in changes {
                guard let stack else { return }
                await stack.mergeChangesSavedElsewhere(set)
            }
        })
    }
}

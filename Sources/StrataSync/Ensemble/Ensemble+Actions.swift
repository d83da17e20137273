import Foundation
import Strata

/// The actions of a sync settings screen (Ensembles' seed app): enable sync is ``attach()``,
/// disable sync is ``detach()``; these are the two destructive ones.
extension Ensemble {
    /// Replaces this store's contents with the cloud's: detaches, deletes every object of the
    /// store (batch deletes, recorded in its history like any save), attaches as a new peer
    /// and syncs. Use it when a store went wrong and the other devices hold the truth. The
    /// deletes are not sent to the other peers.
    ///
    /// For example:
    /// ```swift
    /// try await ensemble.deleteLocalDataAndResync()
    /// ```
    @discardableResult
    public func deleteLocalDataAndResync() async throws(SyncError) -> SyncReport {
        try await detach()
        discardState()   // a fresh peer: resuming would send the deletes below
        var removed = ChangeSet()
        do {
            for entity in coordinator.model.entities {
                let changes = try coordinator.execute(BatchDeleteRequest(entityName: entity.name))
                removed.deleted.formUnion(changes.deleted)
            }
        } catch {
            throw SyncError(.storeFailure, "the store's objects could not be deleted: \(error)", underlying: error)
        }
        if !removed.isEmpty { mergeObservers.publish(removed) }
        try await attach()
        return try await sync()
    }

    /// Deletes the ensemble from the cloud — every peer's files — and detaches this peer. The
    /// other peers are detached by force on their next sync (`cloudIdentityChanged`); every
    /// store keeps its data. Attach again to start a new ensemble from this store.
    ///
    /// For example:
    /// ```swift
    /// try await ensemble.deleteEverything()
    /// ```
    public func deleteEverything() async throws(SyncError) {
        try await exclusive(.detach) { () async throws(SyncError) in
            try await cloud { try await cloudFileSystem.connect() }
            try await cloud { try await cloudFileSystem.removeItem(at: layout.root) }
            discardState()
        }
    }
}

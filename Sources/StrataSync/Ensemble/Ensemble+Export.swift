import Foundation
import Strata

extension Ensemble {
    func exporter(_ state: SyncState, peer: PeerID) -> LocalExporter {
        LocalExporter(model: model, state: state, peer: peer, modelVersion: modelVersion,
                      blobThreshold: options.blobThreshold, newGlobalID: options.newGlobalID)
    }

    func peer(of state: SyncState) throws(SyncError) -> PeerID {
        guard let peer = try state.read({ tx in try tx.peer() }) else {
            throw SyncError(.corruptState, "the local sync state names no peer", path: stateURL.path)
        }
        return peer
    }

    /// Exports every object of the store (at attach).
    func exportEverything(into state: SyncState, peer: PeerID) async throws(SyncError) {
        let token: HistoryToken?
        do { token = try coordinator.currentHistoryToken() } catch {
            throw SyncError(.storeFailure, "the store's history could not be read: \(error)", underlying: error)
        }
        let model = self.model
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "strata.sync.export")
        let snapshotAndIDs: (LocalSnapshot, [ObjectID])
        do {
            snapshotAndIDs = try await context.perform {
                var ids: [ObjectID] = []
                for entity in model.model.entities where model.entities[entity.name] != nil {
                    // A fetch of a superentity returns its subentities' IDs too: each is read under its own.
                    ids += try context.fetchObjectIDs(FetchRequest<ManagedObject>(entityName: entity.name)).filter { $0.entity === entity }
                }
                return (LocalSnapshot.read(ids, in: context, model: model), ids)
            }
        } catch {
            throw SyncError(.storeFailure, "the store could not be read: \(error)", underlying: error as? StrataError)
        }
        let touched = LocalExporter.Touched(objects: snapshotAndIDs.1, lastToken: token)
        _ = try exporter(state, peer: peer).export(touched, snapshot: snapshotAndIDs.0, now: options.now())
    }

    /// Exports what the store saved since the last export; returns the records written.
    /// `skipping`: objects a merge's save just wrote as the state has them (their inserts and
    /// updates in the merge's own transaction need no comparison).
    @discardableResult
    func exportHistory(_ state: SyncState, skipping: Set<ObjectID> = []) async throws(SyncError) -> Int {
        let peer = try peer(of: state)
        var total = 0
        while true {
            let token = try state.read { tx in try tx.meta("historyToken", as: Int64.self) }.map(HistoryToken.init(rawValue:))
            let transactions: [HistoryTransaction]
            do { transactions = try coordinator.history(after: token, limit: 2_000) } catch {
                throw SyncError(.storeFailure, "the store's history could not be read: \(error)", underlying: error)
            }
            guard !transactions.isEmpty else { return total }
            let touched = LocalExporter.Touched(transactions, skipping: skipping, skippingAuthor: StoreMaterializer.author)
            let snapshot = try await readSnapshot(touched.objects)
            total += try exporter(state, peer: peer).export(touched, snapshot: snapshot, now: options.now())?.recordCount ?? 0
        }
    }

    func readSnapshot(_ ids: [ObjectID]) async throws(SyncError) -> LocalSnapshot {
        guard !ids.isEmpty else { return LocalSnapshot() }
        let model = self.model
        let context = ObjectContext(.privateQueue, coordinator: coordinator, name: "strata.sync.export")
        do {
            return try await context.perform { LocalSnapshot.read(ids, in: context, model: model) }
        } catch {
            throw SyncError(.storeFailure, "the store could not be read: \(error)", underlying: error as? StrataError)
        }
    }
}

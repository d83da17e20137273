import Foundation
import Strata

extension Ensemble {
    /// Registers this peer in the ensemble (Ensembles' *leech*): makes the ensemble's folders
    /// if this is the first peer, and exports the store's whole contents as this peer's first
    /// event file. Call ``sync()`` afterwards to merge what the others have. Attaching an
    /// attached ensemble does nothing.
    ///
    /// A peer that detached from this same ensemble *resumes* instead: it keeps its identity
    /// and its state, and the next sync sends what the store saved meanwhile as ordinary edits,
    /// while objects it did not edit take the other peers' values. (Exporting the whole store
    /// again would make its stale values look like new edits, or, stamped low, make its own
    /// later edits lose to its earlier ones.)
    ///
    /// - Throws: `notConnected` or `backendFailure` when the cloud can't be reached;
    ///   `storeFailure` when the store can't be read. Nothing is left half attached: attach
    ///   again.
    ///
    /// For example:
    /// ```swift
    /// try await ensemble.attach()
    /// ```
    public func attach() async throws(SyncError) {
        try await exclusive(.attach) { () async throws(SyncError) in
            if state != nil { return }
            unreadableState = nil
            try await cloud { try await cloudFileSystem.connect() }
            for folder in [layout.root, layout.peers, layout.events, layout.baselines, layout.blobs] {
                try await cloud { try await cloudFileSystem.createDirectory(at: folder) }
            }
            let identity = try await cloudIdentity(creating: true) ?? ""
            if let resumed = try await resume(identity: identity) {
                state = resumed
                report(.progress(.attach, .uploading))
                try await uploadOutbox(resumed)
                return
            }
            // A leftover state of another ensemble's identity, or of a failed attach, starts over.
            discardState()
            let fresh = try SyncState(url: stateURL)
            let peer = options.newPeerID()
            try fresh.write { tx in
                try tx.setMeta("peer", peer.rawValue)
                try tx.setMeta("identity", identity)
            }
            try await register(peer)
            report(.progress(.attach, .exporting))
            try await exportEverything(into: fresh, peer: peer)
            try fresh.write { tx in
                try tx.setMeta("attached", true)
                try tx.setMeta("resumable", true)   // the whole store was exported: a later attach may resume
            }
            state = fresh
            report(.progress(.attach, .uploading))
            try await uploadOutbox(fresh)
        }
    }

    /// Leaves the ensemble (Ensembles' *deleech*): removes this peer's registration and stops
    /// syncing. The store keeps its data; other peers keep theirs. The local sync state stays
    /// (closed), so that attaching again to the same ensemble resumes (see ``attach()``);
    /// ``deleteLocalDataAndResync()`` and ``deleteEverything()`` remove it.
    ///
    /// For example:
    /// ```swift
    /// try await ensemble.detach()
    /// ```
    public func detach() async throws(SyncError) {
        try await exclusive(.detach) { () async throws(SyncError) in
            guard let current = state else { return }
            if let peer = try? current.read({ tx in try tx.peer() }) {
                // Best effort: an unreachable cloud must not keep a peer attached.
                try? await cloudFileSystem.removeItem(at: layout.registration(of: peer))
            }
            try? current.write { tx in try tx.setMeta("attached", false) }
            try? current.close()
            state = nil
        }
    }

    /// The state this peer kept when it detached from the ensemble of `identity`, registered
    /// and marked attached again; `nil` when there is none to resume.
    private func resume(identity: String) async throws(SyncError) -> SyncState? {
        guard FileManager.default.fileExists(atPath: stateURL.path), let kept = try? SyncState(url: stateURL) else { return nil }
        guard let (peer, keptIdentity) = try? kept.read({ tx in (try tx.peer(), try tx.meta("identity", as: String.self)) }),
              keptIdentity == identity, let peer,
              (try? kept.read({ tx in try tx.meta("resumable", as: Bool.self) })) == true else {
            try? kept.close()
            return nil
        }
        try await register(peer)
        try kept.write { tx in try tx.setMeta("attached", true) }
        return kept
    }

    /// Closes and deletes the local state.
    func discardState() {
        try? state?.close()
        state = nil
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(at: URL(filePath: stateURL.path + suffix)) }
    }

    /// The identity written in the cloud, creating it when asked and missing.
    ///
    /// An identity file that can't be read (`corruptFile`: an encrypted store's copy cut short
    /// or damaged) is written anew when creating — its writer's own read-back failed, so no
    /// peer attached with it — and reads as another ensemble's otherwise, so a sync detaches
    /// as when the folder was replaced (a plain store's damaged identity reads as other bytes,
    /// with the same result) instead of failing at every sync.
    ///
    /// One download (no existence check first: a missing file is `notFound`), so a sync that
    /// finds the identity unchanged costs one request for it.
    func cloudIdentity(creating: Bool) async throws(SyncError) -> String? {
        let read: Result<Data, SyncError>
        do { read = .success(try await cloud { try await cloudFileSystem.download(from: layout.identity) }) } catch { read = .failure(error) }
        switch read {
        case .success(let data):
            return String(decoding: data.prefix(64), as: UTF8.self)
        case .failure(let error) where error.code == .notFound:
            break
        case .failure(let error):
            guard error.code == .corruptFile else { throw error }
            if !creating { return Self.unreadableIdentity }
        }
        guard creating else { return nil }
        let identity = UUID().uuidString.lowercased()
        try await cloud { try await cloudFileSystem.upload(Data(identity.utf8), to: layout.identity) }
        // Two first peers may race: whichever identity stayed is the ensemble's.
        let data = try await cloud { try await cloudFileSystem.download(from: layout.identity) }
        return String(decoding: data.prefix(64), as: UTF8.self)
    }

    /// What ``cloudIdentity(creating:)`` answers for an identity file that can't be read: no
    /// ensemble's identity (those are UUIDs).
    static let unreadableIdentity = "<unreadable>"

    func register(_ peer: PeerID) async throws(SyncError) {
        let text = "peer \(peer.rawValue)\nmodel \(coordinator.model.versionHash)\nattached \(options.now().timeIntervalSince1970)\n"
        try await cloud { try await cloudFileSystem.upload(Data(text.utf8), to: layout.registration(of: peer)) }
    }

    /// Detaches because the cloud or the local state no longer agree with this peer, tells
    /// the handlers, and returns the error a sync throws.
    func forceDetach(_ reason: ForcedDetach.Reason, _ message: String) -> SyncError {
        discardState()
        let detach = ForcedDetach(reason: reason, message: message)
        for handler in forcedDetachHandlers { handler(detach) }
        return SyncError(.forcedDetach, detach.description)
    }

    /// Checks that the cloud still holds this ensemble and this peer's registration. When
    /// the sync skipped `connect()` (`connected` false) and the identity is not as expected,
    /// it connects first: a cloud that is not there (an unmounted folder) is `notConnected`,
    /// never a reason to detach.
    func checkMembership(_ current: SyncState, connected: Bool) async throws(SyncError) {
        let (peer, identity) = try current.read { tx in (try tx.peer(), try tx.meta("identity", as: String.self)) }
        guard let peer else {
            throw forceDetach(.corruptLocalState, "the local sync state names no peer")
        }
        var cloudIdentity = try await cloudIdentity(creating: false)
        if cloudIdentity != identity, !connected {
            try await cloud { try await cloudFileSystem.connect() }
            cloudIdentity = try await self.cloudIdentity(creating: false)
        }
        guard cloudIdentity == identity else {
            throw forceDetach(.cloudIdentityChanged, "the ensemble's folder in the cloud was removed or replaced")
        }
        let registered = try await cloud { try await cloudFileSystem.fileExists(at: layout.registration(of: peer)) }
        guard registered.exists else {
            throw forceDetach(.registrationRemoved, "this peer's registration was removed from the cloud")
        }
    }
}

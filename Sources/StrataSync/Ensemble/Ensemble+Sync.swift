import Foundation
import Strata

extension Ensemble {
    /// Syncs (Ensembles' *merge*): exports what the store saved since the last sync, uploads
    /// it, merges what the other peers uploaded (a baseline if there is a newer one, then
    /// their event files), saves the merged objects to the store, and compacts the cloud's
    /// files into a baseline when there are many.
    ///
    /// A file that can't be merged (damaged, truncated, from a later version or another
    /// model) is reported in ``SyncReport/skippedFiles`` and does not stop the others.
    ///
    /// - Throws: `notAttached`; `forcedDetach` when the cloud no longer holds this peer (see
    ///   ``onForcedDetach(_:)``); cloud errors (nothing merged is lost: the next sync goes
    ///   on); `mergeFailed` when the model's rules reject the merged objects.
    ///
    /// For example:
    /// ```swift
    /// let report = try await ensemble.sync()
    /// print(report.mergedFiles, "files merged")
    /// ```
    @discardableResult
    public func sync() async throws(SyncError) -> SyncReport {
        try await exclusive(.sync) { () async throws(SyncError) -> SyncReport in
            let current = try requireState()
            var report = SyncReport()
            let skipsConnect = cloudKnownReachable
            cloudKnownReachable = false   // until this sync succeeds
            if !skipsConnect { try await cloud { try await cloudFileSystem.connect() } }
            try await checkMembership(current, connected: !skipsConnect)
            let materializer = StoreMaterializer(model: model, state: current, afterSave: options.afterMergeSave)
            // Before the export: the history it reads may hold an interrupted merge's save,
            // whose rows must be the state's again, or they would be exported as new objects.
            try await materializer.recoverPending(coordinator: coordinator)
            self.report(.progress(.sync, .exporting))
            report.exportedRecords += try await exportHistory(current)
            self.report(.progress(.sync, .uploading))
            try await uploadOutbox(current)
            self.report(.progress(.sync, .mergingBaseline))
            try await removeUnverifiedBaseline(current)
            let baselines = changeFiles(in: try await list(layout.baselines, report: &report), kind: .baseline)
            try await mergeBaselines(baselines, into: current, report: &report)
            self.report(.progress(.sync, .mergingEvents))
            let eventItems = try await list(layout.events, report: &report)
            try await verifySentFiles(current, events: eventItems, report: &report)
            let events = changeFiles(in: eventItems, kind: .events)
            try await mergeEvents(events, into: current, report: &report)
            self.report(.progress(.sync, .savingToStore))
            let written = try await materialize(materializer, report: &report)
            // What the merge changed beyond the state (a cascade, a nullified inverse) goes out too.
            report.exportedRecords += try await exportHistory(current, skipping: written)
            try await uploadOutbox(current)
            if events.count > options.baselineEventThreshold {
                self.report(.progress(.sync, .compacting))
                try await writeBaseline(current, events: events, baselines: baselines)
                report.wroteBaseline = true
            }
            cloudKnownReachable = true
            return report
        }
    }

    /// Saves the dirty objects to the store in pieces (``EnsembleOptions/mergePieceSize``),
    /// publishing each piece's change set; returns the objects written as the state has them.
    func materialize(_ materializer: StoreMaterializer, report: inout SyncReport) async throws(SyncError) -> Set<ObjectID> {
        var cursor: GlobalObjectKey?
        var written: Set<ObjectID> = []
        var inserted = 0, updated = 0, deleted = 0
        // Pass 1 writes every piece; objects linked to a later piece's new objects stay dirty
        // and pass 2 writes them again, once every object is in the store. Objects whose link
        // waited for a row a pass made (an object inserted again after a delete) are dirty
        // again: one more pass writes them (bounded: the rows they wait for now exist).
        var isLastPass = false, deferred = false, relinked = 0, extraPasses = 0
        while true {
            let piece = try materializer.plan(after: cursor, limit: options.mergePieceSize, isLastPass: isLastPass)
            guard let last = piece.keys.last else {
                if deferred && !isLastPass {
                    isLastPass = true
                } else if relinked > 0 && extraPasses < 2 {
                    isLastPass = true
                    extraPasses += 1
                    relinked = 0
                } else {
                    break
                }
                cursor = nil
                continue
            }
            // Pieces come in key order, each after the last. A key that reads back otherwise (a
            // state edited outside StrataSync, text SQLite and Swift read differently) would
            // make this loop read the same piece for ever.
            if let previous = cursor, !(previous < last) {
                throw SyncError(.corruptState, "the local sync state's dirty objects do not read back in order (after \(previous.entity) \(previous.gid))")
            }
            cursor = last
            deferred = deferred || piece.hasDeferred
            let outcome = try await materializer.apply(piece, coordinator: coordinator)
            report.objectsWritten += outcome.objectCount
            inserted += outcome.changes.inserted.count
            updated += outcome.changes.updated.count
            deleted += outcome.changes.deleted.count
            written.formUnion(outcome.written)
            relinked += outcome.relinked
            if !outcome.changes.isEmpty { mergeObservers.publish(outcome.changes) }
        }
        report.changes = ChangeSetSummary(inserted: inserted, updated: updated, deleted: deleted)
        return written
    }

    /// Uploads the files waiting in the outbox: blobs first (a file is listed only once what
    /// it refers to is there), then event files, oldest first. A file stays in the outbox,
    /// marked sent, until a listing shows it whole (``verifySentFiles(_:events:report:)``):
    /// a store that cut an upload short and said it succeeded gets it again.
    func uploadOutbox(_ state: SyncState) async throws(SyncError) {
        for (name, data) in try state.read({ tx in try tx.outbox() }) {
            let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { try state.write { tx in try tx.removeFromOutbox(name) }; continue }
            let path = try (parts[0] == "blobs" ? layout.blobs : layout.events).appending(parts[1])
            try await cloud { try await cloudFileSystem.upload(data, to: path) }
            try state.write { tx in try tx.markSent(name, true) }
        }
    }

    /// Checks the sent files against listings: a file listed at its size leaves the outbox;
    /// one listed at another size, or missing, is sent again by the next upload. (A store whose
    /// listings lag may make a file go twice; the copies are the same bytes.)
    func verifySentFiles(_ state: SyncState, events: [CloudItem], report: inout SyncReport) async throws(SyncError) {
        let sent = try state.read { tx in try tx.sentFiles() }
        guard !sent.isEmpty else { return }
        var sizes: [String: Int] = [:]
        for item in events where !item.isDirectory { sizes["events/\(item.name.rawValue)"] = item.size }
        if sent.contains(where: { $0.0.hasPrefix("blobs/") }) {
            for item in try await list(layout.blobs, report: &report) where !item.isDirectory { sizes["blobs/\(item.name.rawValue)"] = item.size }
        }
        try state.write { tx in
            for (name, size) in sent {
                if sizes[name] == size { try tx.removeFromOutbox(name) } else { try tx.markSent(name, false) }
            }
        }
    }

    /// The items of `folder`.
    func list(_ folder: CloudPath, report: inout SyncReport) async throws(SyncError) -> [CloudItem] {
        report.listings += 1
        return try await cloud { try await cloudFileSystem.contentsOfDirectory(at: folder) }
    }

    /// The change files of `kind` among `items`, by name; other names are left out.
    func changeFiles(in items: [CloudItem], kind: ChangeFileKind) -> [ChangeFileName] {
        items.compactMap { item in
            guard !item.isDirectory, let name = try? ChangeFileName(parsing: item.name.rawValue), name.kind == kind else { return nil }
            return name
        }.sorted()
    }

    /// Merges every listed baseline this peer has not integrated, newest first, in pieces of
    /// ``baselineRecordPiece`` records (a baseline of a large store is never held decoded
    /// whole), each in one state transaction: it merges whole or not at all.
    ///
    /// Not only the newest: two peers that compact at the same time each write a baseline
    /// that the other's does not hold, and each removes the event files its own covers. A
    /// baseline whose coverage this peer already holds is only marked integrated.
    func mergeBaselines(_ names: [ChangeFileName], into state: SyncState, report: inout SyncReport) async throws(SyncError) {
        for name in names.reversed() {
            if try state.read({ tx in try tx.isIntegrated(name.rawValue) }) { continue }
            guard let (file, blobs, path, coverage) = await downloadBaseline(name, report: &report) else { continue }
            let merged = try state.write { tx -> Bool in
                let held = Dictionary(uniqueKeysWithValues: try tx.coverage().map { ($0.peer, $0.sequence) })
                let holdsMore = coverage.contains { $0.sequence > held[$0.peer] ?? 0 }
                if holdsMore {
                    // The bytes were read through once already: nothing here throws but the state.
                    _ = try EventPayload.decode(file.payload, file: path, piece: Self.baselineRecordPiece) { records in
                        try tx.merge(BlobTransport.substitute(records, blobs: blobs), dirty: true)
                    }
                    try tx.absorbCoverage(coverage)
                }
                try tx.markIntegrated(name.rawValue, peer: file.header.peer.rawValue, sequence: 0, lamport: Int64(file.header.lamport))
                try advanceClock(tx, to: Int64(file.header.lamport))
                return holdsMore
            }
            if merged { report.mergedBaseline = true }
        }
    }

    /// Records per piece of a baseline's merge.
    static let baselineRecordPiece = 20_000


    /// Merges every event file this peer has not merged and no merged baseline holds, in
    /// name order, each in one state transaction. The next file is downloaded and checked
    /// while the state merges the one before it: on a backlog, checking costs a fifth of the
    /// merge's time, and it no longer waits for it.
    func mergeEvents(_ names: [ChangeFileName], into state: SyncState, report: inout SyncReport) async throws(SyncError) {
        // What merged baselines and gapless runs of files hold, read once (not once per file).
        let held = Dictionary(uniqueKeysWithValues: try state.read { tx in try tx.coverage() }.map { ($0.peer, $0.lamport) })
        var wanted: [ChangeFileName] = []
        for name in names where Int64(name.lamport) > held[name.peer.rawValue] ?? 0 {
            if try state.read({ tx in try tx.isIntegrated(name.rawValue) }) { continue }
            wanted.append(name)
        }
        var next = wanted.first.map(downloadAside)
        do {
            for index in wanted.indices {
                guard let current = next else { break }
                let downloaded = await current.value
                next = index + 1 < wanted.count ? downloadAside(wanted[index + 1]) : nil
                switch downloaded {
                case .vanished:
                    continue
                case .skipped(let skipped):
                    report.skippedFiles.append(skipped)
                case .file(let file, let payload):
                    try state.write { tx in
                        try tx.merge(payload.records, dirty: true)
                        try tx.markIntegrated(wanted[index].rawValue, peer: file.header.peer.rawValue, sequence: payload.sequence, lamport: Int64(file.header.lamport))
                        try advanceClock(tx, to: Int64(file.header.lamport))
                    }
                    report.mergedFiles += 1
                    report.mergedRecords += payload.records.count
                }
            }
        } catch {
            // No download outlives the sync that started it.
            next?.cancel()
            _ = await next?.value
            throw error
        }
    }

    /// Starts downloading and checking the event file `name` off this actor.
    private func downloadAside(_ name: ChangeFileName) -> Task<DownloadedFile, Never> {
        let folder = layout.events
        return Task.detached(priority: Task.currentPriority) { await self.download(name, in: folder) }
    }

    func advanceClock(_ tx: StateTransaction, to lamport: Int64) throws {
        if lamport > (try tx.meta("lamport", as: Int64.self) ?? 0) { try tx.setMeta("lamport", lamport) }
    }

    /// Writes the whole merge state as a baseline, then removes the event files it holds, the
    /// baselines this peer merged before (their content is in the new one), and their blobs.
    func writeBaseline(_ state: SyncState, events: [ChangeFileName], baselines: [ChangeFileName]) async throws(SyncError) {
        let peer = try peer(of: state)
        let threshold = options.blobThreshold
        let (name, data, blobs, coverage, merged) = try state.write { tx -> (ChangeFileName, Data, [(name: String, data: Data)], [EventCoverage], Set<String>) in
            let lamport = (try tx.meta("lamport", as: Int64.self) ?? 0) + 1
            try tx.setMeta("lamport", lamport)
            let coverage = try tx.coverage()
            let wire = BlobTransport.externalize(try tx.allRecords(), threshold: threshold, lamport: UInt64(lamport), peer: peer)
            let payload = EventPayload(sequence: 0, coverage: coverage, records: wire.records)
            let header = try ChangeFileHeader(lamport: UInt64(lamport), peer: peer, kind: .baseline,
                                              modelVersion: modelVersion, createdAt: options.now())
            try tx.markIntegrated(header.fileName.rawValue, peer: peer.rawValue, sequence: 0, lamport: lamport)
            try tx.setMeta(Self.unverifiedBaselineKey, header.fileName.rawValue)
            var merged: Set<String> = []
            for baseline in baselines where try tx.isIntegrated(baseline.rawValue) { merged.insert(baseline.rawValue) }
            return (header.fileName, ChangeFile(header: header, payload: payload.encoded()).encoded(), wire.blobs, coverage, merged)
        }
        for blob in blobs {
            try await cloud { try await cloudFileSystem.upload(blob.data, to: layout.blobs.appending(blob.name)) }
        }
        try await cloud { try await cloudFileSystem.upload(data, to: layout.baselines.appending(name.cloudName)) }
        // Nothing is removed until the baseline and its blobs are seen whole: a store that cut
        // an upload short and said it succeeded must not cost the files the baseline replaces.
        let stored = try await cloud { try await cloudFileSystem.download(from: layout.baselines.appending(name.cloudName)) }
        guard stored == data else {
            throw SyncError(.backendFailure, "the baseline read back differs from what was uploaded; the files it replaces stay", path: name.rawValue)
        }
        if !blobs.isEmpty {
            let listed = try await cloud { try await cloudFileSystem.contentsOfDirectory(at: layout.blobs) }
            let sizes = Dictionary(listed.map { ($0.name.rawValue, $0.size) }, uniquingKeysWith: { first, _ in first })
            for blob in blobs where sizes[blob.name] != blob.data.count {
                throw SyncError(.backendFailure, "a blob of the baseline is not whole in the cloud; the files it replaces stay", path: blob.name)
            }
        }
        try state.write { tx in try tx.setMeta(Self.unverifiedBaselineKey, nil) }
        let held = Dictionary(uniqueKeysWithValues: coverage.map { ($0.peer, $0.lamport) })
        var removed: [ChangeFileName] = []
        for event in events where Int64(event.lamport) <= held[event.peer.rawValue] ?? -1 {
            if (try? await cloudFileSystem.removeItem(at: layout.events.appending(event.cloudName))) != nil { removed.append(event) }
        }
        for baseline in baselines where merged.contains(baseline.rawValue) && baseline != name {
            if (try? await cloudFileSystem.removeItem(at: layout.baselines.appending(baseline.cloudName))) != nil { removed.append(baseline) }
        }
        try await removeBlobs(of: removed)
    }

    /// The state's note of a baseline this peer uploaded but has not seen whole yet.
    static let unverifiedBaselineKey = "unverifiedBaseline"

    /// Removes the baseline a failed compaction left (cut short, or never read back whole),
    /// so no peer keeps skipping it. That is always safe: the files it replaces are removed
    /// only once it is seen whole, and this peer's state already holds what it holds.
    func removeUnverifiedBaseline(_ state: SyncState) async throws(SyncError) {
        guard let text = try state.read({ tx in try tx.meta(Self.unverifiedBaselineKey, as: String.self) }) else { return }
        if let name = try? ChangeFileName(parsing: text) {
            let path = try layout.baselines.appending(name.cloudName)
            do {
                try await cloud { try await cloudFileSystem.removeItem(at: path) }
            } catch where error.code == .notFound {
                // never arrived: nothing to remove
            }
            try await removeBlobs(of: [name])
        }
        try state.write { tx in try tx.setMeta(Self.unverifiedBaselineKey, nil) }
    }

    /// Removes the blobs of files that are gone.
    func removeBlobs(of files: [ChangeFileName]) async throws(SyncError) {
        guard !files.isEmpty, let items = try? await cloudFileSystem.contentsOfDirectory(at: layout.blobs) else { return }
        let prefixes = Set(files.map { BlobTransport.prefix(lamport: $0.lamport, peer: $0.peer) })
        for item in items where !item.isDirectory {
            let name = item.name.rawValue
            guard let cut = name.lastIndex(of: "_"), prefixes.contains(String(name[...cut])) else { continue }
            try? await cloudFileSystem.removeItem(at: layout.blobs.appending(item.name))
        }
    }
}

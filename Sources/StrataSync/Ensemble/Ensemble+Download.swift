import Foundation
import Strata

/// Downloading and checking the cloud's change files. An event file's download and check
/// run off the ensemble's actor (they touch no state), so a sync checks the next event file
/// while the state merges the one before (``mergeEvents(_:into:report:)``). A baseline is read
/// piece by piece on the actor, as its merge is.
extension Ensemble {
    /// What downloading and checking one event file gave.
    enum DownloadedFile: Sendable {
        /// The file, checked, with its records (blobs fetched).
        case file(ChangeFile, EventPayload)
        /// Removed since the listing (a peer's cleanup: a baseline holds it).
        case vanished
        /// Left for later: damaged, from a later version or another model, or its blobs not there yet.
        case skipped(SyncReport.SkippedFile)
    }

    /// Downloads and checks one change file.
    nonisolated func download(_ name: ChangeFileName, in folder: CloudPath) async -> DownloadedFile {
        let path: CloudPath
        do { path = try folder.appending(name.cloudName) } catch { return .vanished }
        let data: Data
        do {
            guard let found = try await bytes(at: path) else { return .vanished }
            data = found
        } catch {
            return .skipped(.init(path: path.rawValue, error: error))
        }
        do {
            let file = try ChangeFile.decode(data, options: .init(maxPayloadSize: cloudFileSystem.limits.maxFileSize, expectedName: name))
            let wire = try EventPayload.decode(file.payload, file: path.rawValue)
            let payload = try await BlobTransport.internalize(wire, lamport: file.header.lamport, peer: file.header.peer, path: path.rawValue,
                                                              cloud: cloudFileSystem, folder: layout.blobs)
            try validate(payload, of: file.header, path: path.rawValue)
            return .file(file, payload)
        } catch {
            // A blob not there yet is skipped like a truncated file: the next sync tries again.
            return .skipped(.init(path: path.rawValue, error: error))
        }
    }

    /// The bytes of the change file at `path`; `nil` when it vanished since the listing (a
    /// peer's cleanup removed it: a baseline holds it). Other cloud errors are thrown.
    nonisolated func bytes(at path: CloudPath) async throws(SyncError) -> Data? {
        do {
            return try await cloudFileSystem.download(from: path)
        } catch {
            let error = Self.cloudError(error)
            if error.code == .notFound { return nil }
            throw error
        }
    }

    /// Refuses a payload this peer can't merge faithfully: names its model lacks, or an
    /// event whose records claim another peer's or another count's stamp.
    nonisolated func validate(_ payload: EventPayload, of header: ChangeFileHeader, path: String) throws(SyncError) {
        try validate(coverage: payload.coverage, of: header, path: path)
        try validate(payload.records, of: header, path: path)
    }

    /// Refuses a coverage a file cannot hold.
    nonisolated func validate(coverage: [EventCoverage], of header: ChangeFileHeader, path: String) throws(SyncError) {
        // A baseline holds only files older than itself (its writer's count passed theirs), so
        // a forged one cannot hide later files of another peer; an event file covers nothing.
        for entry in coverage where header.kind != .baseline || entry.lamport >= Int64(header.lamport) || (try? PeerID(entry.peer)) == nil {
            throw SyncError(.corruptFile, "the file claims to hold files it cannot hold (\(entry.peer) up to count \(entry.lamport))", path: path)
        }
    }

    /// Refuses records this peer can't merge faithfully (see ``validate(_:of:path:)``).
    /// A global identifier is text without NUL bytes: SQLite's text functions stop at one, so
    /// the state could not find the object again (a merge would write it for ever).
    static func checkIdentifier(_ gid: String, path: String) throws(SyncError) {
        let holdsNUL = gid.utf8.withContiguousStorageIfAvailable { bytes in bytes.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false } ?? gid.utf8.contains(0)
        guard holdsNUL else { return }
        throw SyncError(.corruptFile, "an object's identifier holds a NUL byte", path: path)
    }

    nonisolated func validate(_ records: [StampedRecord], of header: ChangeFileHeader, path: String) throws(SyncError) {
        // A file lists an object's records together: its entity is looked up and its
        // identifier checked once per run, not once per record.
        var plan: SyncModel.EntityPlan?
        var checkedGid: String?
        for stamped in records {
            if header.kind == .events, stamped.stamp.peer != header.peer.rawValue || stamped.stamp.lamport != Int64(header.lamport) {
                throw SyncError(.corruptFile, "an event file's record carries a stamp of another peer or count", path: path)
            }
            // A baseline carries every peer's stamps: each must name a peer (ASCII letters, digits
            // and '-'), so stamps compare alike by bytes and as strings, and read back whole.
            if header.kind != .events, !PeerID.isValid(stamped.stamp.peer) {
                throw SyncError(.corruptFile, "a baseline's record carries a stamp that names no peer", path: path)
            }
            let key = stamped.record.object
            // By its bytes, as the state keeps it (a dictionary's `==` takes canonically equivalent names as one).
            guard let found = model.plan(of: key.entity, reusing: plan), UTF8Order.compare(found.entity.name, key.entity) == 0 else {
                throw SyncError(.modelMismatch, "the file names an entity this model lacks: \(key.entity)", path: path)
            }
            plan = found
            if checkedGid.map({ UTF8Order.compare($0, key.gid) != 0 }) ?? true {
                try Self.checkIdentifier(key.gid, path: path)
                checkedGid = key.gid
            }
            switch stamped.record {
            case .cell(_, let property, let value):
                // Names are matched by their bytes, as the state keeps them.
                switch found.slot(of: property) {
                case .attribute(let index)?:
                    guard case .attribute? = CellValue.decode(value, attribute: found.attributes[index]) else {
                        throw SyncError(.modelMismatch, "\(key.entity).\(property) holds a value of another type", path: path)
                    }
                case .toOne?, .toMany?:
                    switch CellValue.decode(value, attribute: nil) {
                    case .reference(let gid)?: if let gid { try Self.checkIdentifier(gid, path: path) }
                    case .order(let gids)?: for gid in gids { try Self.checkIdentifier(gid, path: path) }
                    default: throw SyncError(.corruptFile, "\(key.entity).\(property) holds no reference", path: path)
                    }
                case nil:
                    throw SyncError(.modelMismatch, "the file names a property this model lacks: \(key.entity).\(property)", path: path)
                }
            case .member(_, let relationship, let member, _):
                guard case .toMany? = found.slot(of: relationship) else {
                    throw SyncError(.modelMismatch, "the file names a to-many this model lacks: \(key.entity).\(relationship)", path: path)
                }
                try Self.checkIdentifier(member, path: path)
            case .insert, .delete:
                break
            }
        }
    }

    /// Downloads a baseline and reads it through once, piece by piece: it is checked as
    /// ``download(_:in:)`` checks a file, and its blobs are fetched. `nil` when it
    /// vanished or is skipped (reported).
    func downloadBaseline(_ name: ChangeFileName, report: inout SyncReport) async -> (ChangeFile, blobs: [String: [UInt8]], path: String, coverage: [EventCoverage])? {
        let path: CloudPath
        do { path = try layout.baselines.appending(name.cloudName) } catch { return nil }
        let data: Data
        do {
            guard let found = try await bytes(at: path) else { return nil }
            data = found
        } catch {
            report.skippedFiles.append(.init(path: path.rawValue, error: error))
            return nil
        }
        do {
            let file = try ChangeFile.decode(data, options: .init(maxPayloadSize: cloudFileSystem.limits.maxFileSize, expectedName: name))
            let header = file.header
            var references: [BlobTransport.Reference] = []
            var referring: [StampedRecord] = []   // checked once their blobs are in
            let head: (sequence: Int64, coverage: [EventCoverage])
            do {
                head = try EventPayload.decode(file.payload, file: path.rawValue, piece: Self.baselineRecordPiece) { records in
                    var plain: [StampedRecord] = []
                    plain.reserveCapacity(records.count)
                    for stamped in records {
                        if let reference = try BlobTransport.reference(in: stamped, lamport: header.lamport, peer: header.peer, path: path.rawValue) {
                            references.append(reference)
                            referring.append(stamped)
                        } else {
                            plain.append(stamped)
                        }
                    }
                    try validate(plain, of: header, path: path.rawValue)
                }
            } catch let error as SyncError {
                throw error
            } catch {
                throw SyncError(.corruptFile, "the baseline could not be read: \(error)", path: path.rawValue)
            }
            try validate(coverage: head.coverage, of: header, path: path.rawValue)
            let blobs = try await BlobTransport.fetch(references, path: path.rawValue, cloud: cloudFileSystem, folder: layout.blobs)
            try validate(BlobTransport.substitute(referring, blobs: blobs), of: header, path: path.rawValue)
            return (file, blobs, path.rawValue, head.coverage)
        } catch let error as SyncError {
            report.skippedFiles.append(.init(path: path.rawValue, error: error))
            return nil
        } catch {
            report.skippedFiles.append(.init(path: path.rawValue, error: SyncError(.corruptFile, "the baseline could not be read: \(error)", path: path.rawValue)))
            return nil
        }
    }
}

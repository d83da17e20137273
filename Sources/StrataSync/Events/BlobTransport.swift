import Foundation

/// Large values travel apart from the files that hold them: a property value above
/// ``EnsembleOptions/blobThreshold`` bytes is uploaded as its own file under `blobs/`, and the
/// event or baseline carries a reference (name, size, CRC-32) in its place. A reader fetches
/// the blob, checks its size and checksum, and merges the value as if it had been inline, so
/// the merge state and the store never see references.
///
/// Blob names are `<count>_<peer>_<n>.blob`, after the file that refers to them: a file may
/// only refer to its own blobs, and cleanup removes a file's blobs with it.
enum BlobTransport {
    /// The reference's tag in a value's first byte (no property value uses it).
    static let referenceTag: UInt8 = 0xB1

    struct Reference: Hashable, Sendable {
        var name: String
        var size: Int
        var checksum: UInt32

        var encoded: [UInt8] {
            var writer = ByteWriter()
            writer.write(BlobTransport.referenceTag)
            writer.writeString(name)
            writer.writeVarint(UInt64(size))
            writer.write(checksum)
            return writer.bytes
        }

        init(name: String, size: Int, checksum: UInt32) {
            self.name = name
            self.size = size
            self.checksum = checksum
        }

        /// The reference in `value`, or `nil` when `value` is an ordinary value.
        init?(_ value: [UInt8]) {
            guard value.first == BlobTransport.referenceTag else { return nil }
            var reader = ByteReader(value)
            _ = reader.read(UInt8.self)
            guard let name = reader.readString(), let size = reader.readVarint().flatMap({ Int(exactly: $0) }),
                  let checksum = reader.read(UInt32.self), reader.isAtEnd else { return nil }
            self.init(name: name, size: size, checksum: checksum)
        }
    }

    /// The prefix of the names of the blobs of the file written at `lamport` by `peer`.
    static func prefix(lamport: UInt64, peer: PeerID) -> String {
        let digits = String(lamport)
        return String(repeating: "0", count: max(0, ChangeFileName.lamportDigits - digits.count)) + digits + "_" + peer.rawValue + "_"
    }

    /// Replaces values above `threshold` bytes by references; returns the blobs to upload.
    static func externalize(_ records: [StampedRecord], threshold: Int, lamport: UInt64, peer: PeerID) -> (records: [StampedRecord], blobs: [(name: String, data: Data)]) {
        var blobs: [(name: String, data: Data)] = []
        let prefix = prefix(lamport: lamport, peer: peer)
        let records = records.map { stamped -> StampedRecord in
            guard case .cell(let key, let property, let value) = stamped.record, value.count > threshold else { return stamped }
            let name = "\(prefix)\(blobs.count + 1).blob"
            blobs.append((name, Data(value)))
            let reference = Reference(name: name, size: value.count, checksum: CRC32.checksum(value))
            return StampedRecord(stamp: stamped.stamp, record: .cell(key, property: property, value: reference.encoded))
        }
        return (records, blobs)
    }

    /// Replaces references by their blobs' bytes, downloaded from `folder` and checked.
    ///
    /// - Throws: `corruptFile` for a reference to another file's blob or a blob whose size or
    ///   checksum differs; the cloud's errors (`notFound` while a blob is still on its way).
    static func internalize(_ payload: EventPayload, lamport: UInt64, peer: PeerID, path: String,
                            cloud: any CloudFileSystem, folder: CloudPath) async throws(SyncError) -> EventPayload {
        var references: [Reference] = []
        for stamped in payload.records {
            if let reference = try reference(in: stamped, lamport: lamport, peer: peer, path: path) { references.append(reference) }
        }
        guard !references.isEmpty else { return payload }
        let blobs = try await fetch(references, path: path, cloud: cloud, folder: folder)
        var result = payload
        result.records = substitute(payload.records, blobs: blobs)
        return result
    }

    /// The blob reference `stamped` holds, if any, checked to be one of the file's own
    /// (written at `lamport` by `peer`).
    static func reference(in stamped: StampedRecord, lamport: UInt64, peer: PeerID, path: String) throws(SyncError) -> Reference? {
        guard case .cell(_, _, let value) = stamped.record, let reference = Reference(value) else { return nil }
        guard reference.name.hasPrefix(prefix(lamport: lamport, peer: peer)), reference.name.hasSuffix(".blob"), (try? CloudName(reference.name)) != nil else {
            throw SyncError(.corruptFile, "the file refers to a blob that is not its own: \(reference.name)", path: path)
        }
        return reference
    }

    /// Downloads and checks the blobs of `references`; returns their bytes by name.
    static func fetch(_ references: [Reference], path: String, cloud: any CloudFileSystem, folder: CloudPath) async throws(SyncError) -> [String: [UInt8]] {
        var blobs: [String: [UInt8]] = [:]
        for reference in references where blobs[reference.name] == nil {
            let blob = try folder.appending(reference.name)
            let data: Data
            do { data = try await cloud.download(from: blob) } catch let error as SyncError { throw error } catch {
                throw SyncError(.backendFailure, "the cloud file system failed: \(error)", path: blob.rawValue, underlying: error)
            }
            guard data.count == reference.size, CRC32.checksum(data) == reference.checksum else {
                throw SyncError(.corruptFile, "the blob \(reference.name) does not match its reference (size or checksum)", path: path)
            }
            blobs[reference.name] = [UInt8](data)
        }
        return blobs
    }

    /// `records` with each reference replaced by its blob's bytes from `blobs`.
    static func substitute(_ records: [StampedRecord], blobs: [String: [UInt8]]) -> [StampedRecord] {
        guard !blobs.isEmpty else { return records }
        return records.map { stamped in
            guard case .cell(let key, let property, let value) = stamped.record, let reference = Reference(value),
                  let bytes = blobs[reference.name] else { return stamped }
            return StampedRecord(stamp: stamped.stamp, record: .cell(key, property: property, value: bytes))
        }
    }
}

import Foundation

/// Parses and checks a change file's header (see ``ChangeFile`` for the layout), in the order
/// that gives each failure its proper code: too short → truncated; wrong magic or checksum →
/// corrupt; then the version (unknown or from the future); then the fields.
enum ChangeFileHeaderParser {
    struct Parsed {
        var header: ChangeFileHeader
        var payloadOffset: Int
        var payloadLength: UInt64
        var payloadChecksum: UInt32
    }

    static func parse(_ bytes: [UInt8], path: String?) throws(SyncError) -> Parsed {
        let magic = ChangeFile.magic
        let magicCount = min(bytes.count, magic.count)
        guard bytes[0..<magicCount].elementsEqual(magic[0..<magicCount]) else {
            throw SyncError(.corruptFile, "not a Strata change file (wrong magic bytes)", path: path)
        }
        guard bytes.count >= ChangeFile.prefixLength else {
            throw SyncError(.truncated, "the file ends inside its header (\(bytes.count) bytes)", path: path)
        }
        var prefix = ByteReader(Array(bytes[magic.count..<ChangeFile.prefixLength]))
        guard let version = prefix.read(UInt16.self), let bodyLength = prefix.read(UInt16.self),
              let checksum = prefix.read(UInt32.self) else {
            throw SyncError(.truncated, "the file ends inside its header", path: path)
        }
        guard Int(bodyLength) <= ChangeFile.maxHeaderBodyLength else {
            throw SyncError(.corruptFile, "the header claims \(bodyLength) bytes, above \(ChangeFile.maxHeaderBodyLength)", path: path)
        }
        let bodyEnd = ChangeFile.prefixLength + Int(bodyLength)
        guard bytes.count >= bodyEnd else {
            throw SyncError(.truncated, "the file ends inside its header (\(bytes.count) of \(bodyEnd) bytes)", path: path)
        }
        let body = Array(bytes[ChangeFile.prefixLength..<bodyEnd])
        let computed = CRC32.checksum(body, continuing: CRC32.checksum(bytes[magic.count..<magic.count + 4]))
        guard computed == checksum else {
            throw SyncError(.corruptFile, "the header's checksum does not match", path: path)
        }
        guard version != 0 else {
            throw SyncError(.unknownFormatVersion, "format version 0 was never written", path: path)
        }
        guard version <= ChangeFile.formatVersion else {
            throw SyncError(.fromTheFuture, "format version \(version) is newer than \(ChangeFile.formatVersion), the newest this build reads: update the app", path: path)
        }
        return try parseBodyV1(body, offset: bodyEnd, path: path)
    }

    private static func parseBodyV1(_ body: [UInt8], offset: Int, path: String?) throws(SyncError) -> Parsed {
        var reader = ByteReader(body)
        guard let lamport = reader.read(UInt64.self), let milliseconds = reader.read(Int64.self),
              let payloadLength = reader.read(UInt64.self), let payloadChecksum = reader.read(UInt32.self),
              let peerText = reader.readShortString(), let kindText = reader.readShortString(),
              let modelVersion = reader.readShortString(), reader.isAtEnd else {
            throw SyncError(.corruptFile, "the header's fields do not fit its length", path: path)
        }
        var header = try ChangeFileHeader(
            lamport: lamport, peer: try PeerID(peerText), kind: try ChangeFileKind(kindText),
            modelVersion: modelVersion, createdAt: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        header.formatVersion = 1
        return Parsed(header: header, payloadOffset: offset, payloadLength: payloadLength, payloadChecksum: payloadChecksum)
    }
}

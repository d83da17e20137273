public import Foundation

/// The container every file a peer uploads is wrapped in: a versioned, checksummed header and
/// an opaque payload (events, a baseline, a blob — their content is defined elsewhere).
///
/// Layout (integers little-endian):
///
/// | bytes | field |
/// |---|---|
/// | 8 | magic `89 53 54 52 53 59 4E 0A` (`\x89STRSYN\n`) |
/// | 2 | format version |
/// | 2 | header body length *n* (at most ``maxHeaderBodyLength``) |
/// | 4 | CRC-32 of the version, the length and the body |
/// | *n* | body (version 1: Lamport count u64, created-at milliseconds i64, payload length u64, payload CRC-32 u32, then peer, kind and model version, each a length byte and ASCII) |
/// | payload length | payload, then the end of the file |
///
/// The first 16 bytes keep this shape in every future version, so any build can tell a file
/// from the future (``SyncError/Code/fromTheFuture``) from a damaged one
/// (``SyncError/Code/corruptFile``). Decoding never traps: a file cut short is
/// ``SyncError/Code/truncated`` (retry later: it may still be arriving), a damaged or foreign
/// one ``SyncError/Code/corruptFile``.
///
/// For example:
/// ```swift
/// let data = ChangeFile(header: header, payload: payload).encoded()
/// let back = try ChangeFile.decode(data, options: .init(acceptedModelVersions: [model.versionHash]))
/// ```
public struct ChangeFile: Hashable, Sendable {
    /// The format version this build writes, and the newest it reads.
    public static let formatVersion: UInt16 = 1
    /// The magic bytes every change file starts with.
    public static let magic: [UInt8] = [0x89, 0x53, 0x54, 0x52, 0x53, 0x59, 0x4E, 0x0A]
    /// The size of the part of the header that is the same in every version.
    public static let prefixLength = 16
    /// The largest header body accepted.
    public static let maxHeaderBodyLength = 1024

    /// What the file says about itself.
    public var header: ChangeFileHeader
    /// The content, opaque to the container.
    public var payload: Data

    /// A file to write.
    ///
    /// ```swift
    /// let file = ChangeFile(header: header, payload: Data())
    /// ```
    public init(header: ChangeFileHeader, payload: Data) {
        self.header = header
        self.payload = payload
    }

    /// What a decoder checks beyond the container's own consistency.
    public struct DecodingOptions: Sendable, Hashable {
        /// The largest payload accepted (``SyncError/Code/tooLarge`` above it).
        public var maxPayloadSize: Int
        /// The model versions this peer can read; `nil` accepts any
        /// (``SyncError/Code/modelMismatch`` otherwise).
        public var acceptedModelVersions: Set<String>?
        /// The name the file was listed under; when set, the header must agree with it
        /// (``SyncError/Code/corruptFile`` otherwise), so a file renamed to pass as another
        /// peer's is refused.
        public var expectedName: ChangeFileName?

        /// Options; by default, payloads up to 256 MiB, any model version, any name.
        ///
        /// ```swift
        /// let options = ChangeFile.DecodingOptions(acceptedModelVersions: [model.versionHash], expectedName: name)
        /// ```
        public init(maxPayloadSize: Int = CloudLimits.standard.maxFileSize, acceptedModelVersions: Set<String>? = nil, expectedName: ChangeFileName? = nil) {
            self.maxPayloadSize = maxPayloadSize
            self.acceptedModelVersions = acceptedModelVersions
            self.expectedName = expectedName
        }
    }

    /// The file's bytes.
    ///
    /// ```swift
    /// try await cloud.upload(file.encoded(), to: try events.appending(file.header.fileName.cloudName))
    /// ```
    public func encoded() -> Data {
        var body = ByteWriter()
        body.write(header.lamport)
        body.write(Int64((header.createdAt.timeIntervalSince1970 * 1000).rounded()))
        body.write(UInt64(payload.count))
        body.write(CRC32.checksum(payload))
        body.writeShortString(header.peer.rawValue)
        body.writeShortString(header.kind.rawValue)
        body.writeShortString(header.modelVersion)

        var prefix = ByteWriter()
        prefix.write(ChangeFile.formatVersion)
        prefix.write(UInt16(body.bytes.count))
        let checksum = CRC32.checksum(body.bytes, continuing: CRC32.checksum(prefix.bytes))

        var data = Data(capacity: ChangeFile.prefixLength + body.bytes.count + payload.count)
        data.append(contentsOf: ChangeFile.magic)
        data.append(contentsOf: prefix.bytes)
        var sum = ByteWriter()
        sum.write(checksum)
        data.append(contentsOf: sum.bytes)
        data.append(contentsOf: body.bytes)
        data.append(payload)
        return data
    }

    /// Decodes and checks a whole file.
    ///
    /// ```swift
    /// do { let file = try ChangeFile.decode(data) ; use(file.payload) }
    /// catch where error.code == .truncated { /* retry on a later sync */ }
    /// ```
    public static func decode(_ data: Data, options: DecodingOptions = .init()) throws(SyncError) -> ChangeFile {
        let context = options.expectedName?.rawValue
        let parsed = try ChangeFileHeaderParser.parse(Array(data.prefix(prefixLength + maxHeaderBodyLength)), path: context)
        let header = parsed.header
        if let accepted = options.acceptedModelVersions, !accepted.contains(header.modelVersion) {
            throw SyncError(.modelMismatch, "written for model version \(header.modelVersion), which this peer does not read", path: context)
        }
        if let expected = options.expectedName, expected != header.fileName {
            throw SyncError(.corruptFile, "the header (\(header.fileName)) does not match the file's name", path: context)
        }
        if parsed.payloadLength > UInt64(options.maxPayloadSize) {
            throw SyncError(.tooLarge, "the payload has \(parsed.payloadLength) bytes, above the limit of \(options.maxPayloadSize)", path: context)
        }
        let available = data.count - parsed.payloadOffset
        let length = Int(parsed.payloadLength)
        if available < length {
            throw SyncError(.truncated, "the payload has \(available) of \(length) bytes", path: context)
        }
        if available > length {
            throw SyncError(.corruptFile, "\(available - length) bytes follow the payload", path: context)
        }
        let start = data.startIndex + parsed.payloadOffset
        let payload = Data(data[start..<data.endIndex])
        if CRC32.checksum(payload) != parsed.payloadChecksum {
            throw SyncError(.corruptFile, "the payload's checksum does not match", path: context)
        }
        return ChangeFile(header: header, payload: payload)
    }

    /// Decodes only the header from the first bytes of a file (at least ``prefixLength`` +
    /// the body; ``prefixLength`` + ``maxHeaderBodyLength`` always suffice), to learn what a
    /// file holds without its payload.
    ///
    /// ```swift
    /// let header = try ChangeFile.decodeHeader(firstBytes)
    /// ```
    public static func decodeHeader(_ prefix: Data) throws(SyncError) -> ChangeFileHeader {
        try ChangeFileHeaderParser.parse(Array(prefix.prefix(prefixLength + maxHeaderBodyLength)), path: nil).header
    }
}

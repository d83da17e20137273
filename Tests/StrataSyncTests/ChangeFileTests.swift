import Foundation
import StrataRandom
import Testing
@testable import StrataSync

@Suite("Change-file container")
struct ChangeFileTests {
    private let peer = try! PeerID("peer-a")

    private func sample(payload: Data = Data("some events".utf8), lamport: UInt64 = 42) throws -> ChangeFile {
        let header = try ChangeFileHeader(lamport: lamport, peer: peer, kind: .events, modelVersion: "0123456789abcdef0123456789abcdef",
                                          createdAt: Date(timeIntervalSince1970: 1_700_000_000.123))
        return ChangeFile(header: header, payload: payload)
    }

    /// Rewrites bytes of the header body or prefix and fixes the header checksum, as a newer
    /// (or forging) writer would.
    private func rewritingHeader(_ data: Data, _ edit: (inout [UInt8]) -> Void) -> Data {
        var bytes = [UInt8](data)
        edit(&bytes)
        let bodyLength = Int(bytes[10]) | Int(bytes[11]) << 8
        let checksum = CRC32.checksum(bytes[16..<16 + bodyLength], continuing: CRC32.checksum(bytes[8..<12]))
        for index in 0..<4 { bytes[12 + index] = UInt8(truncatingIfNeeded: checksum >> (8 * index)) }
        return Data(bytes)
    }

    @Test("CRC-32 matches the standard check value")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("56789".utf8), continuing: CRC32.checksum(Array("1234".utf8))) == 0xCBF4_3926)
        #expect(CRC32.checksum(Data("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    @Test("CRC-32 reads contiguous bytes eight at a time and agrees with the byte-by-byte sum")
    func crcOfContiguousBytesAgreesWithTheByteLoop() {
        var random = SplitMix64(seed: 32)
        for length in [0, 1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4099] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            let byByte = CRC32.checksum(bytes.lazy.map { $0 })   // not contiguous: the byte loop
            #expect(CRC32.checksum(bytes) == byByte, "array of \(length)")
            #expect(CRC32.checksum(Data(bytes)) == byByte, "Data of \(length)")
            let cut = length / 3
            let data = Data(bytes)
            #expect(CRC32.checksum(data[cut...], continuing: CRC32.checksum(data[..<cut])) == byByte, "Data slices of \(length) at \(cut)")
            #expect(CRC32.checksum(bytes[cut...], continuing: CRC32.checksum(bytes[..<cut])) == byByte, "array slices of \(length) at \(cut)")
        }
    }

    @Test("round trip: header fields and payload come back; decodeHeader reads the header alone")
    func roundTrip() throws {
        for payload in [Data(), Data("x".utf8), Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 * 7) })] {
            let file = try sample(payload: payload)
            let data = file.encoded()
            #expect(data.starts(with: ChangeFile.magic))
            let decoded = try ChangeFile.decode(data, options: .init(acceptedModelVersions: [file.header.modelVersion],
                                                                     expectedName: file.header.fileName))
            #expect(decoded == file)
            #expect(decoded.header.formatVersion == ChangeFile.formatVersion)
            #expect(decoded.header.createdAt.timeIntervalSince1970 == 1_700_000_000.123)
            #expect(try ChangeFile.decodeHeader(data.prefix(ChangeFile.prefixLength + ChangeFile.maxHeaderBodyLength)) == file.header)
        }
    }

    @Test("every strict prefix of a file is reported as truncated")
    func everyPrefixIsTruncated() throws {
        let data = try sample(payload: Data(repeating: 9, count: 300)).encoded()
        for length in 0..<data.count {
            let code = syncErrorCode { _ = try ChangeFile.decode(data.prefix(length)) }
            #expect(code == .truncated, "prefix of \(length) bytes gave \(String(describing: code))")
        }
    }

    @Test("every single-bit flip is detected with a typed error")
    func everyBitFlipIsDetected() throws {
        let data = try sample(payload: Data((0..<200).map { UInt8($0) })).encoded()
        var codes: Set<SyncError.Code> = []
        for bit in 0..<(data.count * 8) {
            var flipped = data
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            let code = syncErrorCode { _ = try ChangeFile.decode(flipped) }
            #expect(code != nil, "flipping bit \(bit) went unnoticed")
            if let code { codes.insert(code) }
        }
        #expect(codes.isSubset(of: [.corruptFile, .truncated]))
        #expect(codes.contains(.corruptFile))
    }

    @Test("random damage (truncations, flips, splices, garbage) never crashes and always gives a typed error")
    func randomDamage() throws {
        let environment = ProcessInfo.processInfo.environment
        let seed = UInt64(environment["STRATA_SEED"] ?? "") ?? 20_261_123
        var random = SplitMix64(seed: seed)
        let rounds = environment["STRATA_LONG"] == "1" ? 200_000 : 3_000
        let original = try sample(payload: Data((0..<400).map { UInt8(truncatingIfNeeded: $0 &* 13) })).encoded()
        var undetected = 0
        for round in 0..<rounds {
            var bytes = [UInt8](original)
            switch random.next() % 4 {
            case 0: bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            case 1:
                for _ in 0..<(1 + random.next() % 8) {
                    bytes[Int(random.next() % UInt64(bytes.count))] ^= UInt8(truncatingIfNeeded: random.next() | 1)
                }
            case 2:
                let start = Int(random.next() % UInt64(bytes.count))
                bytes.replaceSubrange(start..<min(bytes.count, start + 8), with: (0..<Int(random.next() % 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
            default:
                bytes = (0..<Int(random.next() % 2_000)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                if random.next() % 2 == 0 { bytes = ChangeFile.magic + bytes }
            }
            do {
                let decoded = try ChangeFile.decode(Data(bytes))
                if Data(bytes) != original { undetected += 1; Issue.record("seed \(seed) round \(round): damage decoded as \(decoded.header)") }
            } catch {
                #expect(error.code != .backendFailure, "seed \(seed) round \(round)")
            }
        }
        #expect(undetected == 0, "seed \(seed)")
    }

    @Test("format version 0 is unknown; a higher one is from the future; a damaged version is corrupt")
    func versions() throws {
        let data = try sample().encoded()
        let zero = rewritingHeader(data) { $0[8] = 0; $0[9] = 0 }
        #expect(syncErrorCode { _ = try ChangeFile.decode(zero) } == .unknownFormatVersion)
        let future = rewritingHeader(data) { $0[8] = 2; $0[9] = 0 }
        #expect(syncErrorCode { _ = try ChangeFile.decode(future) } == .fromTheFuture)
        let farFuture = rewritingHeader(data) { $0[8] = 0xFF; $0[9] = 0xFF }
        #expect(syncErrorCode { _ = try ChangeFile.decodeHeader(farFuture) } == .fromTheFuture)
        var damaged = data
        damaged[8] = 2  // no checksum fix: damage, not a newer writer
        #expect(syncErrorCode { _ = try ChangeFile.decode(damaged) } == .corruptFile)
    }

    @Test("checked against the reader: model version, name, size limit, trailing bytes, forged identifiers")
    func readerChecks() throws {
        let file = try sample()
        let data = file.encoded()
        #expect(syncErrorCode { _ = try ChangeFile.decode(data, options: .init(acceptedModelVersions: ["other"])) } == .modelMismatch)
        let otherPeer = ChangeFileName(lamport: 42, peer: try PeerID("peer-b"), kind: .events)
        #expect(syncErrorCode { _ = try ChangeFile.decode(data, options: .init(expectedName: otherPeer)) } == .corruptFile)
        let otherCount = ChangeFileName(lamport: 43, peer: peer, kind: .events)
        #expect(syncErrorCode { _ = try ChangeFile.decode(data, options: .init(expectedName: otherCount)) } == .corruptFile)
        #expect(syncErrorCode { _ = try ChangeFile.decode(data, options: .init(maxPayloadSize: 5)) } == .tooLarge)
        #expect(syncErrorCode { _ = try ChangeFile.decode(data + Data([0])) } == .corruptFile)
        #expect(syncErrorCode { _ = try ChangeFile.decode(Data("<html>404</html>".utf8)) } == .corruptFile)

        // A forger who fixes the checksum still cannot smuggle an unsafe peer identifier.
        let peerOffset = 16 + 8 + 8 + 8 + 4 + 1   // body: lamport, created, length, checksum, then peer's length byte
        let forged = rewritingHeader(data) { bytes in
            for (index, byte) in "../p-a".utf8.enumerated() { bytes[peerOffset + index] = byte }
        }
        #expect(syncErrorCode { _ = try ChangeFile.decode(forged) } == .unsafeName)
        // A payload length that claims more than the limit is refused before anything is read.
        let huge = rewritingHeader(data) { bytes in for index in 0..<8 { bytes[16 + 16 + index] = 0xFF } }
        #expect(syncErrorCode { _ = try ChangeFile.decode(huge) } == .tooLarge)
    }

    @Test("header values are validated when a file is made")
    func headerValidation() throws {
        for bad in ["", "has space", String(repeating: "a", count: 65), "tab\t", "é"] {
            #expect(syncErrorCode { _ = try ChangeFileHeader(lamport: 1, peer: peer, kind: .events, modelVersion: bad) } == .unsafeName)
        }
        let odd = try ChangeFileHeader(lamport: 1, peer: peer, kind: .blob, modelVersion: "m", createdAt: Date(timeIntervalSince1970: .infinity))
        #expect(try ChangeFile.decode(ChangeFile(header: odd, payload: Data()).encoded()).header == odd)
    }
}

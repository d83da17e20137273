// Fuzzes the container of every file StrataSync downloads (events, baselines): the versioned
// header with its CRC-32 and the payload's length and CRC-32 (`ChangeFile.decode`,
// `ChangeFile.decodeHeader`).
//
// Input: the first byte picks the mode: even, the rest is the file as downloaded; odd, the
// target first writes the right checksums into the rest (where a header has room for them),
// so the fuzzer reaches the header's fields behind the checks.
// Properties: decoding never traps; bad input throws `SyncError` with one of the codes a
// downloaded file may get (typed throws make any other type impossible); a file that decodes
// re-encodes to a file that decodes to the same header fields and payload.
import FuzzSupport
import Foundation
import StrataSync

let fileCodes: Set<SyncError.Code> = [.truncated, .corruptFile, .unknownFormatVersion, .fromTheFuture, .modelMismatch, .tooLarge, .unsafeName]

func check(_ error: SyncError, _ what: String) {
    FuzzCheck.expect(fileCodes.contains(error.code), "\(what) threw \(error.code): \(error)")
}

/// `bytes` with the header's and the payload's CRC-32 written in, where it has room for them.
func withChecksums(_ bytes: [UInt8]) -> [UInt8] {
    var bytes = bytes
    guard bytes.count >= ChangeFile.prefixLength else { return bytes }
    let bodyLength = min(Int(bytes[10]) | Int(bytes[11]) << 8, bytes.count - ChangeFile.prefixLength)
    let body = ChangeFile.prefixLength..<(ChangeFile.prefixLength + bodyLength)
    // The body's payload checksum (after lamport, time and length: bytes 24..<28 of the body).
    if bodyLength >= 28 {
        let payload = Array(bytes[body.upperBound...])
        put(CRC32.checksum(payload), into: &bytes, at: body.lowerBound + 24)
    }
    put(CRC32.checksum(Array(bytes[8..<12]) + Array(bytes[body])), into: &bytes, at: 12)
    return bytes
}

func put(_ value: UInt32, into bytes: inout [UInt8], at offset: Int) {
    for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: value >> (8 * UInt32(i))) }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChangeFile(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzCheck.data(pointer, count)
    guard let selector = data.first else { return 0 }
    var bytes = Array(data.dropFirst())
    if selector & 1 == 1 { bytes = withChecksums(bytes) }
    let input = Data(bytes)

    let header: ChangeFileHeader?
    do { header = try ChangeFile.decodeHeader(input) } catch { check(error, "decodeHeader"); header = nil }
    let file: ChangeFile
    do { file = try ChangeFile.decode(input, options: .init(maxPayloadSize: 1 << 20)) } catch {
        check(error, "decode")
        return 0
    }
    FuzzCheck.expect(header == file.header, "decodeHeader and decode disagree")
    do {
        let again = try ChangeFile.decode(file.encoded())
        FuzzCheck.expect(again.payload == file.payload && again.header.lamport == file.header.lamport && again.header.peer == file.header.peer
                         && again.header.kind == file.header.kind && again.header.modelVersion == file.header.modelVersion,
                         "a decoded file re-encodes to another file")
    } catch {
        FuzzCheck.fail("a decoded file re-encodes to a file that does not decode: \(error)")
    }
    // Options that refuse it say so with their own codes.
    do {
        _ = try ChangeFile.decode(input, options: .init(acceptedModelVersions: ["other-model"]))
        FuzzCheck.expect(file.header.modelVersion == "other-model", "a file of another model version was accepted")
    } catch {
        FuzzCheck.expect(error.code == .modelMismatch, "another model version threw \(error.code): \(error)")
    }
    return 0
}

/// The executable's entry point (see `FuzzDriver`).
@_cdecl("FuzzChangeFile_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzDriver.run(argc, argv, fuzzChangeFile)
}

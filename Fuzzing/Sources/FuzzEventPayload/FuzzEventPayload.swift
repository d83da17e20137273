// Fuzzes what StrataSync reads inside a change file once its container has passed its
// checksums: the event or baseline payload (`EventPayload.decode`), each cell's value as the
// merge decodes it for every attribute type and for relationships (`CellValue.decode`), and
// the references to large values uploaded apart (`BlobTransport.Reference`).
//
// Input: the payload's bytes.
// Properties: decoding never traps; a bad payload throws `SyncError` `.corruptFile`,
// `.fromTheFuture` or `.unknownFormatVersion` (typed throws make any other type impossible);
// a payload that decodes encodes to one that decodes equal; a cell value that decodes encodes
// to bytes that decode to the same bytes again; a blob reference that reads re-encodes to one
// that reads the same.
import FuzzSupport
import Foundation
@testable import Strata
@testable import StrataSync

struct Payload: Codable, Sendable {
    var name: String
    var values: [Int]
}

/// One attribute of each type (a JSON transformable among them), and `nil` for relationships.
let attributes: [AttributeDescription?] = {
    var list: [AttributeDescription?] = AttributeType.allCases.filter { $0 != .transformable }.map { AttributeDescription("a", type: $0) }
    var json = AttributeDescription("json", type: .transformable, transformerName: .json)
    json.transformer = JSONTransformer<Payload>()
    list.append(json)
    list.append(nil)
    return list
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEventPayload(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = FuzzCheck.data(pointer, count)
    let payload: EventPayload
    do { payload = try EventPayload.decode(data, file: "fuzz") } catch {
        FuzzCheck.expect([.corruptFile, .fromTheFuture, .unknownFormatVersion].contains(error.code), "decode threw \(error.code): \(error)")
        checkValue(Array(data))   // the same bytes as a lone cell value
        return 0
    }
    do {
        let again = try EventPayload.decode(payload.encoded(), file: "fuzz")
        FuzzCheck.expect(again == payload, "a decoded payload re-encodes to another payload")
    } catch {
        FuzzCheck.fail("a decoded payload re-encodes to bytes that do not decode: \(error)")
    }
    for stamped in payload.records {
        if case .cell(_, _, let value) = stamped.record { checkValue(value) }
    }
    return 0
}

func checkValue(_ value: [UInt8]) {
    for attribute in attributes {
        guard let cell = CellValue.decode(value, attribute: attribute) else { continue }
        let encoded = cell.encoded
        guard let again = CellValue.decode(encoded, attribute: attribute) else {
            FuzzCheck.fail("\(cell) (\(attribute?.type.rawValue ?? "relationship")) encodes to bytes that do not decode")
        }
        FuzzCheck.expect(again.encoded == encoded, "\(cell) does not encode the same twice")
    }
    if let reference = BlobTransport.Reference(value) {
        // Not byte for byte: a varint may be written longer than it needs, and still reads.
        FuzzCheck.expect(BlobTransport.Reference(reference.encoded) == reference, "the blob reference \(reference) does not read back")
    }
}

/// The executable's entry point (see `FuzzDriver`).
@_cdecl("FuzzEventPayload_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzDriver.run(argc, argv, fuzzEventPayload)
}

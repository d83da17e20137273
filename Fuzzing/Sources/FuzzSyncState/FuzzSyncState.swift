// Fuzzes what StrataSync reads back from its own local state: the packed cells of an object
// row (`PackedCells`, schema 2), the one decoder of bytes the state stores itself.
//
// Input: the row's packed bytes.
// Properties: unpacking never traps; bytes that are not a packing give `nil` (the caller
// reports `corruptState`); a packing that unpacks packs to bytes that unpack to the same cells,
// and packing is canonical (packing those cells again gives the same bytes).
import FuzzSupport
import Foundation
@testable import StrataSync

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSyncState(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = [UInt8](FuzzCheck.data(pointer, count))
    guard let cells = PackedCells(bytes) else { return 0 }
    let packed = cells.bytes
    guard let again = PackedCells(packed) else {
        FuzzCheck.expect(false, "a packing of \(cells.entries.count) cells does not unpack")
        return 0
    }
    FuzzCheck.expect(again.entries == cells.entries, "packing changed the cells")
    FuzzCheck.expect(again.bytes == packed, "packing is not canonical")
    return 0
}

/// The executable's entry point (see `FuzzDriver`).
@_cdecl("FuzzSyncState_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzDriver.run(argc, argv, fuzzSyncState)
}

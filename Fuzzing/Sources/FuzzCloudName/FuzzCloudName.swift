// Fuzzes the names StrataSync reads from cloud listings and file headers before it uses
// them as paths: `CloudName`, `CloudPath`, `PeerID`, `ChangeFileKind` and
// `ChangeFileName(parsing:)`.
//
// Input: the name (any bytes, as UTF-8).
// Properties: parsing never traps; a bad name throws `SyncError` `.unsafeName` or
// `.unrecognizedName` (typed throws make any other type impossible); a name that parses gives
// back the same text; a safe name never holds a separator, `..` or a control character.
import FuzzSupport
import Foundation
import StrataSync

func expectName(_ error: SyncError, _ what: String) {
    FuzzCheck.expect(error.code == .unsafeName || error.code == .unrecognizedName, "\(what) threw \(error.code): \(error)")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCloudName(_ pointer: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let text = String(decoding: FuzzCheck.data(pointer, count), as: UTF8.self)
    do {
        let name = try CloudName(text)
        FuzzCheck.expect(name.rawValue == text, "CloudName changed \(text.debugDescription)")
        FuzzCheck.expect(!text.contains("/") && !text.contains("\\") && text != ".." && text != "."
                         && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "unsafe name accepted: \(text.debugDescription)")
    } catch { expectName(error, "CloudName") }
    do {
        let path = try CloudPath(text)
        FuzzCheck.expect(path.rawValue == text, "CloudPath changed \(text.debugDescription) to \(path.rawValue.debugDescription)")
        FuzzCheck.expect(!text.hasPrefix("/") && !text.split(separator: "/").contains(".."), "unsafe path accepted: \(text.debugDescription)")
    } catch { expectName(error, "CloudPath") }
    do {
        let peer = try PeerID(text)
        FuzzCheck.expect(peer.rawValue == text && (try? CloudName(text)) != nil, "PeerID accepted \(text.debugDescription)")
    } catch { expectName(error, "PeerID") }
    do { _ = try ChangeFileKind(text) } catch { expectName(error, "ChangeFileKind") }
    do {
        let name = try ChangeFileName(parsing: text)
        FuzzCheck.expect(name.rawValue == text, "ChangeFileName(parsing: \(text.debugDescription)) gives back \(name.rawValue.debugDescription)")
        let again = try ChangeFileName(parsing: name.cloudName.rawValue)
        FuzzCheck.expect(again == name, "a change-file name does not parse back to itself")
    } catch { expectName(error, "ChangeFileName") }
    return 0
}

/// The executable's entry point (see `FuzzDriver`).
@_cdecl("FuzzCloudName_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzDriver.run(argc, argv, fuzzCloudName)
}

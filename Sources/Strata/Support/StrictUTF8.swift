import Foundation

/// Strings read from bytes a file holds (a store's non-ASCII text columns and history
/// payloads, sync's change files, baselines and state): valid UTF-8 or nothing. Shared by the
/// package's modules (`package` access).
///
/// `String(validating:as:)` does this too, but it is generic in the standard library and looks
/// up type metadata on every call (about 1 000 instructions a string, 4 % of a sync backlog's
/// merge). Decoding a buffer in place takes the standard library's fast path; a string whose
/// bytes differ from the input was repaired, so the input was not valid.
///
/// For example:
/// ```swift
/// let name = bytes.withUnsafeBufferPointer { StrictUTF8.string($0) }   // nil for bad bytes
/// ```
package enum StrictUTF8 {
    /// `bytes` as a string when they are valid UTF-8, else `nil`.
    package static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var decoded = String(decoding: bytes, as: UTF8.self)
        let same = decoded.withUTF8 { utf8 in
            guard utf8.count == bytes.count else { return false }
            guard let mine = utf8.baseAddress, let theirs = bytes.baseAddress else { return true }   // both empty
            return memcmp(mine, theirs, utf8.count) == 0
        }
        return same ? decoded : nil
    }
}

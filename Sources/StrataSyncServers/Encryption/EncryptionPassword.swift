import Foundation

/// The password's bytes: UTF-8 of its Unicode NFC form, so the same password typed where
/// text arrives composed and where it arrives decomposed gives the same key. Its description
/// and mirror are redacted, so printing or dumping a value that holds one never shows it.
struct EncryptionPassword: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    let bytes: [UInt8]

    init(_ password: String) {
        bytes = Array(password.precomposedStringWithCanonicalMapping.utf8)
    }

    var description: String { "<password>" }
    var debugDescription: String { "<password>" }
    var customMirror: Mirror { Mirror(self, children: [:]) }
}

import Foundation

/// The identifier of one peer (one store on one device) in an ensemble.
///
/// Peer identifiers travel in file names and file headers, so they come back from the cloud
/// and are validated like any other cloud input: 1 to 64 ASCII letters, digits and `-`,
/// starting with a letter or digit (no `_`, which separates the parts of a change-file name;
/// no `.`, so never `..`).
///
/// For example:
/// ```swift
/// let me = PeerID.random()
/// let other = try PeerID("c0ffee-42")
/// ```
public struct PeerID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The longest identifier, in characters.
    public static let maxLength = 64

    /// The identifier; always valid.
    public let rawValue: String

    /// Validates `rawValue`; throws ``SyncError/Code/unsafeName`` if it is not a peer identifier.
    ///
    /// ```swift
    /// _ = try? PeerID("../peer")   // throws
    /// ```
    public init(_ rawValue: String) throws(SyncError) {
        guard PeerID.isValid(rawValue) else {
            throw SyncError(.unsafeName, "not a peer identifier (1 to \(PeerID.maxLength) letters, digits and '-')", path: rawValue)
        }
        self.rawValue = rawValue
    }

    /// A new random identifier (a lowercased UUID).
    ///
    /// ```swift
    /// let peer = PeerID.random()
    /// ```
    public static func random() -> PeerID {
        PeerID(validated: UUID().uuidString.lowercased())
    }

    private init(validated: String) { rawValue = validated }

    static func isValid(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maxLength, isAlphanumeric(bytes[0]) else { return false }
        return bytes.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    public var description: String { rawValue }
    public static func < (lhs: PeerID, rhs: PeerID) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The name of a change file, which tells what it holds without downloading it:
/// `<lamport>_<peer>_<kind>.strata`, the Lamport count written as exactly 20 decimal digits
/// so that names sort in count order in any listing (S3 lists in byte order).
///
/// A peer writes each file under a new Lamport count, so (count, peer) names one file.
/// Parsing is strict — one spelling per file — and validates every part: a name from the
/// cloud that is unsafe throws ``SyncError/Code/unsafeName``; a safe name that is not a
/// change-file name (a `.DS_Store`, a sync client's conflict copy) throws
/// ``SyncError/Code/unrecognizedName``, and callers skip it.
///
/// For example:
/// ```swift
/// let name = ChangeFileName(lamport: 42, peer: try PeerID("peer-a"), kind: .events)
/// print(name.cloudName)   // 00000000000000000042_peer-a_events.strata
/// let parsed = try ChangeFileName(parsing: "00000000000000000042_peer-a_events.strata")
/// ```
public struct ChangeFileName: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The extension every change file has.
    public static let fileExtension = ".strata"
    /// The number of digits of the Lamport count.
    public static let lamportDigits = 20

    /// The writer's Lamport count when it wrote the file.
    public var lamport: UInt64
    /// The peer that wrote the file.
    public var peer: PeerID
    /// What the file holds.
    public var kind: ChangeFileKind

    /// A name for a file to write.
    ///
    /// ```swift
    /// let name = ChangeFileName(lamport: 1, peer: .random(), kind: .baseline)
    /// ```
    public init(lamport: UInt64, peer: PeerID, kind: ChangeFileKind) {
        self.lamport = lamport
        self.peer = peer
        self.kind = kind
    }

    /// Parses a name from a listing.
    ///
    /// ```swift
    /// for item in listing {
    ///     guard let name = try? ChangeFileName(parsing: item.name.rawValue) else { continue }
    ///     print(name.lamport, name.peer)
    /// }
    /// ```
    public init(parsing text: String) throws(SyncError) {
        let name = try CloudName(text)
        guard text.hasSuffix(ChangeFileName.fileExtension) else {
            throw SyncError(.unrecognizedName, "not a change file (no \(ChangeFileName.fileExtension) extension)", path: name.rawValue)
        }
        let stem = text.dropLast(ChangeFileName.fileExtension.count)
        let parts = stem.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            throw SyncError(.unrecognizedName, "a change-file name has three parts separated by '_'", path: text)
        }
        let digits = parts[0].utf8
        guard digits.count == ChangeFileName.lamportDigits, digits.allSatisfy({ (0x30...0x39).contains($0) }),
              let lamport = UInt64(parts[0]) else {
            throw SyncError(.unrecognizedName, "the Lamport count is not \(ChangeFileName.lamportDigits) digits", path: text)
        }
        self.lamport = lamport
        self.peer = try PeerID(String(parts[1]))
        self.kind = try ChangeFileKind(String(parts[2]))
    }

    /// The name as a validated cloud name.
    public var cloudName: CloudName {
        // Every part is validated and the whole is at most 20 + 1 + 64 + 1 + 16 + 7 bytes of
        // ASCII letters, digits, '-', '_' and '.', so this is always a safe name.
        CloudName(trusted: rawValue)
    }

    /// The name as a string.
    public var rawValue: String {
        let count = String(lamport)
        let padded = String(repeating: "0", count: ChangeFileName.lamportDigits - count.count) + count
        return "\(padded)_\(peer.rawValue)_\(kind.rawValue)\(ChangeFileName.fileExtension)"
    }

    public var description: String { rawValue }

    /// Orders by Lamport count, then peer, then kind: the order files are applied in.
    public static func < (lhs: ChangeFileName, rhs: ChangeFileName) -> Bool {
        (lhs.lamport, lhs.peer.rawValue, lhs.kind.rawValue) < (rhs.lamport, rhs.peer.rawValue, rhs.kind.rawValue)
    }
}

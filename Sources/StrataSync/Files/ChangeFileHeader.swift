public import Foundation

/// What a change file says about itself, ahead of its payload: who wrote it, at which Lamport
/// count, for which model version, holding what.
///
/// The header repeats what the file's name says (count, peer, kind) so that a file cannot
/// claim, by being renamed, to come from another peer: ``ChangeFile/decode(_:options:)``
/// refuses a file whose header and name disagree.
///
/// For example:
/// ```swift
/// let header = try ChangeFileHeader(lamport: 7, peer: me, kind: .events, modelVersion: model.versionHash)
/// let file = ChangeFile(header: header, payload: eventBytes)
/// ```
public struct ChangeFileHeader: Hashable, Sendable {
    /// The longest model version, in bytes.
    public static let maxModelVersionLength = 64

    /// The container format version the file was written in (``ChangeFile/formatVersion``
    /// for files this build writes).
    public internal(set) var formatVersion: UInt16
    /// The writer's Lamport count.
    public var lamport: UInt64
    /// The peer that wrote the file.
    public var peer: PeerID
    /// What the payload holds.
    public var kind: ChangeFileKind
    /// The model's version hash (`ObjectModel.versionHash`) the payload was written for.
    public var modelVersion: String
    /// When the file was written, by the writer's clock, to the millisecond (informative only:
    /// ordering never relies on it alone).
    public var createdAt: Date

    /// A header for a file to write. Throws ``SyncError/Code/unsafeName`` when the model
    /// version is empty, longer than ``maxModelVersionLength`` or not printable ASCII.
    ///
    /// ```swift
    /// let header = try ChangeFileHeader(lamport: 1, peer: .random(), kind: .baseline, modelVersion: "abc123")
    /// ```
    public init(lamport: UInt64, peer: PeerID, kind: ChangeFileKind, modelVersion: String, createdAt: Date = Date()) throws(SyncError) {
        guard ChangeFileHeader.isValidModelVersion(modelVersion) else {
            throw SyncError(.unsafeName, "not a model version (1 to \(ChangeFileHeader.maxModelVersionLength) printable ASCII characters)", path: modelVersion)
        }
        self.formatVersion = ChangeFile.formatVersion
        self.lamport = lamport
        self.peer = peer
        self.kind = kind
        self.modelVersion = modelVersion
        // Milliseconds, kept within ±2^53 so they survive the Int64 field and a Double.
        let milliseconds = (createdAt.timeIntervalSince1970 * 1000).rounded()
        let limit = 9_007_199_254_740_992.0
        let stored = milliseconds.isFinite ? min(max(milliseconds, -limit), limit) : 0
        self.createdAt = Date(timeIntervalSince1970: stored / 1000)
    }

    /// The file name this header's file is stored under.
    public var fileName: ChangeFileName { ChangeFileName(lamport: lamport, peer: peer, kind: kind) }

    static func isValidModelVersion(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= maxModelVersionLength && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }
}

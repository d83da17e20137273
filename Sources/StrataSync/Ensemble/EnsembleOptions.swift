public import Foundation

/// Settings of an ``Ensemble``; the defaults suit most apps.
///
/// For example:
/// ```swift
/// var options = EnsembleOptions()
/// options.baselineEventThreshold = 200
/// let ensemble = try await Ensemble(identifier: "MainStore", coordinator: coordinator,
///                                   cloudFileSystem: cloud, options: options)
/// ```
public struct EnsembleOptions: Sendable {
    /// Where this peer keeps its sync state; by default a folder beside the store named
    /// `.<store file name>.sync`.
    public var localDirectory: URL?
    /// When the cloud holds more event files than this, a sync writes a baseline and removes
    /// the files it replaces.
    public var baselineEventThreshold = 100
    /// Property values larger than this many bytes (a photo, a document) travel as separate
    /// files under `blobs/`, so event files stay small and a value is downloaded once.
    public var blobThreshold = 64 * 1024
    /// A sync saves the objects it merged to the store in pieces of this many objects, one
    /// save each (each piece's change set is published on its own): memory stays bounded
    /// however large a baseline or a backlog is, and a stack's main context merges smaller
    /// change sets.
    public var mergePieceSize = 20_000
    /// The clock of the stamps' wall-clock part (tests fix it).
    public var now: @Sendable () -> Date = { Date() }
    /// Names a peer at its first attach (random runs fix it, with ``now``, so a seed replays).
    var newPeerID: @Sendable () -> PeerID = { PeerID.random() }
    /// Names an object without an identifier attribute (replayed the same way).
    var newGlobalID: @Sendable () -> String = { UUID().uuidString.lowercased() }
    /// Called after a merge's save reached the store and before the state records it; a throw
    /// stands for a crash there (tests of the recovery).
    var afterMergeSave: (@Sendable () throws -> Void)?

    /// The default settings.
    public init() {}
}

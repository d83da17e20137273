/// Where an ensemble's files live in the cloud:
///
/// ```text
/// <ensemble>/identity                    the ensemble's identity (a UUID), written by the first peer
/// <ensemble>/peers/<peer>                one registration per attached peer
/// <ensemble>/events/<lamport>_<peer>_events.strata
/// <ensemble>/baselines/<lamport>_<peer>_baseline.strata
/// <ensemble>/blobs/<lamport>_<peer>_<n>.blob       large values of the file of that count and peer
/// ```
struct EnsembleLayout: Sendable {
    let root: CloudPath
    let identity: CloudPath
    let peers: CloudPath
    let events: CloudPath
    let baselines: CloudPath
    let blobs: CloudPath

    init(identifier: String) throws(SyncError) {
        root = try CloudPath(names: [CloudName(identifier)])
        identity = try root.appending("identity")
        peers = try root.appending("peers")
        events = try root.appending("events")
        baselines = try root.appending("baselines")
        blobs = try root.appending("blobs")
    }

    func registration(of peer: PeerID) throws(SyncError) -> CloudPath { try peers.appending(peer.rawValue) }
}

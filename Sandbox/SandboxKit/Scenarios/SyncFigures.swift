import Foundation
import StrataSync

/// What the `sync` scenario measured, as counters (integers, units in their names) and as a
/// line for the table's notes. The issue's targets are quoted next to each figure; nothing
/// here judges a run as failed.
///
/// For example:
/// ```swift
/// var figures = SyncFigures(peers: 3, route: peer.route)
/// print(figures.detail)
/// ```
struct SyncFigures: Sendable {
    /// One measured merge: its report's counts, the sync's seconds, the main queue's stalls.
    struct Merge: Sendable {
        struct Counts: Sendable {
            var objectsWritten = 0, mergedRecords = 0, mergedFiles = 0
        }
        var report = Counts()
        var seconds = 0.0
        var stalls: StallSummary?
        /// The cloud calls, requests and bytes of the sync.
        var traffic = SyncTraffic()
        /// Seconds from each phase's start to the next (`savingToStore` includes exporting
        /// what the merge's save changed beyond the state, `compacting` writing a baseline).
        var phases: [(String, Double)] = []

        init() {}

        /// The phases as `name s` pairs.
        var phaseText: String { phases.map { "\($0.0) \(String(format: "%.3f", $0.1))" }.joined(separator: ", ") }

        init(report: SyncReport, seconds: Double, stalls: StallSummary, phases: [(String, Double)], traffic: SyncTraffic) {
            self.phases = phases
            self.traffic = traffic
            self.report = Counts(objectsWritten: report.objectsWritten, mergedRecords: report.mergedRecords, mergedFiles: report.mergedFiles)
            self.seconds = seconds
            self.stalls = stalls
        }

        /// Objects the merge wrote to the store per second.
        var changesPerSecond: Double { Double(report.objectsWritten) / max(seconds, 1e-9) }
    }

    var peers: Int
    /// How merges reach the stack's main context.
    var route: String
    /// `--backend`.
    var backend: String
    var inserts = Merge()
    var updates = Merge()
    var localBooks = 0
    var noOpSeconds: [Double] = []
    var noOpListings = 0
    /// The most calls, requests and bytes one no-op sync made (each figure its own maximum).
    var noOpTraffic = SyncTraffic()
    /// Files and objects the no-op syncs merged (0 expected).
    var noOpMerged = 0
    var cloud: (bytes: Int, files: Int) = (0, 0)
    var cloudAfterBaseline: (bytes: Int, files: Int) = (0, 0)
    /// Event files in the cloud before and after the compacting peer's baseline.
    var eventFiles = 0, eventFilesAfterBaseline = 0
    var compactorSeconds = 0.0
    var wroteBaseline = false
    var firstSyncSeconds = 0.0
    var firstSyncRSSAtStart: UInt64 = 0
    var firstSyncPeakRSS: UInt64 = 0
    /// `sync` when the peak was reset before the first sync, `process` when the kernel refused.
    var firstSyncPeakScope = "process"
    var firstSyncFromBaseline = false
    var firstSyncBooks = 0
    var capture = SyncCaptureCost()

    init(peers: Int, route: String, backend: String) {
        self.peers = peers
        self.route = route
        self.backend = backend
    }

    var noOpP50: Double { noOpSeconds.isEmpty ? 0 : noOpSeconds.sorted()[noOpSeconds.count / 2] }
    var noOpMax: Double { noOpSeconds.max() ?? 0 }
    /// The larger of the two merges' max stalls, ms.
    var mergeStallMaxMs: Double { max(inserts.stalls?.maxMs ?? 0, updates.stalls?.maxMs ?? 0) }

    var counters: [String: Int] {
        let mb = { (bytes: UInt64) in Int(bytes / 1_048_576) }
        return [
            "peers": peers,
            "backlogChanges": inserts.report.objectsWritten,
            "backlogRecords": inserts.report.mergedRecords,
            "backlogFiles": inserts.report.mergedFiles,
            "backlogMillis": Int(inserts.seconds * 1000),
            "backlogChangesPerSecond": Int(inserts.changesPerSecond),
            "updateChanges": updates.report.objectsWritten,
            "updateMillis": Int(updates.seconds * 1000),
            "updateChangesPerSecond": Int(updates.changesPerSecond),
            "mergeStallMaxMicros": Int(mergeStallMaxMs * 1000),
            "mergeStallsOver16Ms": (inserts.stalls?.over16Ms ?? 0) + (updates.stalls?.over16Ms ?? 0),
            "noOpSyncs": noOpSeconds.count,
            "noOpP50Micros": Int(noOpP50 * 1e6),
            "noOpMaxMicros": Int(noOpMax * 1e6),
            "noOpListingsMax": noOpListings,
            "noOpCallsMax": noOpTraffic.calls,
            "noOpRequestsMax": noOpTraffic.requests,
            "backlogCalls": inserts.traffic.calls,
            "backlogRequests": inserts.traffic.requests,
            "backlogBytesDown": inserts.traffic.bytesDown,
            "backlogBytesUp": inserts.traffic.bytesUp,
            "cloudBytes": cloud.bytes,
            "cloudFiles": cloud.files,
            "cloudBytesAfterBaseline": cloudAfterBaseline.bytes,
            "cloudFilesAfterBaseline": cloudAfterBaseline.files,
            "eventFiles": eventFiles,
            "eventFilesAfterBaseline": eventFilesAfterBaseline,
            "compactorSyncMillis": Int(compactorSeconds * 1000),
            "firstSyncMillis": Int(firstSyncSeconds * 1000),
            "firstSyncPeakRSSMB": mb(firstSyncPeakRSS),
            "firstSyncRSSAtStartMB": mb(firstSyncRSSAtStart),
            "firstSyncBooks": firstSyncBooks,
            "captureInsertPermille": Int(capture.insertRatio * 1000),
            "captureUpdatePermille": Int(capture.updateRatio * 1000),
            "saveInsertMicrosHistoryOff": Int(capture.insertOff * 1e6),
            "saveInsertMicrosHistoryOn": Int(capture.insertOn * 1e6),
            "saveUpdateMicrosHistoryOff": Int(capture.updateOff * 1e6),
            "saveUpdateMicrosHistoryOn": Int(capture.updateOn * 1e6),
        ]
    }

    var detail: String {
        let f = { (value: Double, digits: Int) in String(format: "%.\(digits)f", value) }
        let mb = { (bytes: UInt64) in f(Double(bytes) / 1_048_576, 1) }
        let requests = { (traffic: SyncTraffic) in traffic.hasRequests ? "\(traffic.requests) requests" : "\(traffic.calls) calls" }
        return [
            "\(peers) peers over \(backend)",
            "backlog: \(inserts.report.objectsWritten) objects from \(inserts.report.mergedFiles) files in \(f(inserts.seconds, 3)) s = \(Int(inserts.changesPerSecond)) changes/s (target >= 50000; >= 20000 over webdav at 20000), \(requests(inserts.traffic)), \(inserts.traffic.bytesDown) bytes down [\(inserts.phaseText)]",
            "updates: \(updates.report.objectsWritten) in \(f(updates.seconds, 3)) s = \(Int(updates.changesPerSecond))/s [\(updates.phaseText)]",
            "main max stall during the merges \(f(mergeStallMaxMs, 1)) ms (target < 16 on hybrid)",
            "no-op sync p50 \(f(noOpP50 * 1000, 2)) ms, max \(f(noOpMax * 1000, 2)) ms over \(noOpSeconds.count) (target <= 20; <= 50 over webdav), \(noOpListings) listings, at most \(requests(noOpTraffic)) (target <= 4)",
            "cloud \(cloud.bytes) bytes in \(cloud.files) files, \(cloudAfterBaseline.bytes) in \(cloudAfterBaseline.files) after the baseline",
            "compacting peer's first sync \(f(compactorSeconds, 2)) s",
            "new peer's first sync from the baseline \(f(firstSyncSeconds, 2)) s, peak RSS \(mb(firstSyncPeakRSS)) MB (\(firstSyncPeakScope); \(mb(firstSyncRSSAtStart)) MB at its start) (targets 10 s, 300 MB at 100000)",
            "capture: insert saves x\(f(capture.insertRatio, 2)), update saves x\(f(capture.updateRatio, 2)) with history (target <= 1.3)",
            "merges reach main: \(route)",
        ].joined(separator: "; ")
    }
}

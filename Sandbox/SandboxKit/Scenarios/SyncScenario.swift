import Foundation
import Strata
import StrataStacks
import StrataSync

/// `sync`: `--peers` devices, each on the chosen stack with its own store, sync `--objects`
/// books (and their authors, one per 100 books, named across peers by their `index`)
/// through the `--backend` cloud (``SyncBackend``: a folder in the scratch directory, or a
/// WebDAV or S3 server on loopback started for the run). Every cloud call is counted
/// (``CountingCloudFileSystem``), and a server backend's HTTP requests and bytes too. The run's
/// own stack is peer 0, the one measured; the other peers make the changes:
///
/// 1. Peers 1… insert a share of the books each and sync; peer 0 merges that backlog in one
///    sync (the run's rate: books per second; `backlogChangesPerSecond` counts authors too),
///    with a heartbeat on the main queue until the merge has reached peer 0's main context
///    and the UI's fetched list refreshed.
/// 2. The others catch up; peer 1 re-rates every book; peer 0 merges those updates (same heartbeat).
/// 3. Two quiescent rounds; every peer's canonical dump must be the same (`check`).
/// 4. ``noOpSyncs`` syncs with nothing new on peer 0: latency p50 / max, listings, calls and
///    requests per sync.
/// 5. Bytes and files in the cloud (listed through the backend).
/// 6. A compacting peer attaches and syncs with `baselineEventThreshold = 0` (it writes a
///    baseline and removes the event files it holds); then, with peers 1… closed, a new peer
///    on the stack attaches and makes its first sync from that baseline: time and peak RSS.
///    From the Sandbox command the new peer runs in a child process (``FirstSyncProbe``), so
///    its peak RSS is a device's, not this process's with every other peer in it.
/// 7. ``SyncCaptureCost``: a save's time with the change history on and off.
///
/// Nothing here asserts a timing: the figures go to `counters` (JSON) and `detail` (the table's notes).
///
/// For example:
/// ```swift
/// swift run -c release Sandbox --scenario sync --stack hybrid --objects 20000 --peers 3
/// swift run -c release Sandbox --scenario sync --stack hybrid --objects 20000 --backend webdav
/// ```
public struct SyncScenario: Scenario {
    public static let name = "sync"
    public static let summary = "--peers devices sync books through --backend (a folder, WebDAV, S3): a backlog's merge rate, requests and bytes, no-op syncs, main-queue stalls, a new peer's first sync, capture cost"
    public static let recordsHistory = true
    /// Syncs with nothing new that step 4 times.
    public static let noOpSyncs = 20

    public init() {}

    public func perform(_ run: ScenarioRun) async throws -> ScenarioOutcome {
        guard run.peers >= 2 else { throw SandboxError("sync needs at least 2 peers (--peers), got \(run.peers)") }
        let stack = try run.requireStack()
        let server = try await SyncCloud.start(run.syncBackend, scratch: run.scratch)
        defer { server.stop() }
        let cloud = server.cloud
        let local = try await SyncScenarioPeer(name: "peer-0", stack: stack, cloud: cloud)
        var remote: [SyncScenarioPeer] = []
        for i in 1..<run.peers {
            let other = try await Stacks.open(stack.kind, model: run.model, storeURL: run.scratch.newFile("sync-peer-\(i)"),
                                              options: SyncScenarioPeer.stackOptions)
            remote.append(try await SyncScenarioPeer(name: "peer-\(i)", stack: other, cloud: cloud))
        }
        defer { for peer in remote { peer.close() } }
        var figures = SyncFigures(peers: run.peers, route: local.route, backend: run.syncBackend.rawValue)
        for peer in [local] + remote { try await peer.ensemble.attach() }

        // 1. The remote backlog of inserts.
        let books = run.data.books
        for (i, peer) in remote.enumerated() {
            let share = books.count * i / remote.count..<books.count * (i + 1) / remote.count
            run.step(share.lowerBound, of: books.count, "books inserted on the other peers")
            try await peer.insertBooks(books[share], batch: run.batch)
            try await peer.ensemble.sync()
        }
        run.step(0, of: 1, "merging the backlog")
        figures.inserts = try await Self.measuredSync(local, server: server)

        // 2. The remote backlog of updates.
        run.step(0, of: 1, "the other peers catching up")
        for peer in remote { try await peer.ensemble.sync() }
        _ = try await remote[0].bumpRatings(batch: run.batch)
        try await remote[0].ensemble.sync()
        run.step(0, of: 1, "merging the updates")
        figures.updates = try await Self.measuredSync(local, server: server)

        // 3. Quiescence and convergence.
        for _ in 0..<2 { for peer in [local] + remote { try await peer.ensemble.sync() } }
        let reference = try await local.ensemble.canonicalDump()
        var diverged: [String] = []
        for peer in remote where try await peer.ensemble.canonicalDump() != reference { diverged.append(peer.name) }
        figures.localBooks = try await local.bookCount()

        // 4. Syncs with nothing new.
        run.step(0, of: Self.noOpSyncs, "no-op syncs")
        for i in 0..<Self.noOpSyncs {
            let traffic = server.traffic
            let began = ContinuousClock.now
            let report = try await local.ensemble.sync()
            figures.noOpSeconds.append((ContinuousClock.now - began).sandboxSeconds)
            figures.noOpListings = max(figures.noOpListings, report.listings)
            figures.noOpTraffic = figures.noOpTraffic.largest(server.traffic - traffic)
            figures.noOpMerged += report.mergedFiles + report.objectsWritten
            run.step(i + 1, of: Self.noOpSyncs, "no-op syncs")
        }

        // 5. The cloud.
        figures.cloud = try await server.census()
        figures.eventFiles = try await server.census(of: "SandboxSync/events").files

        // 6. A compacting peer writes a baseline; a new peer's first sync reads it.
        run.step(0, of: 1, "compacting into a baseline")
        var compactOptions = EnsembleOptions()
        compactOptions.baselineEventThreshold = 0
        let compactor = try await SyncScenarioPeer(
            name: "compactor", stack: try await Stacks.open(stack.kind, model: run.model, storeURL: run.scratch.newFile("sync-compactor"),
                                                            options: SyncScenarioPeer.stackOptions),
            cloud: cloud, options: compactOptions)
        try await compactor.ensemble.attach()
        let began = ContinuousClock.now
        let compacted = try await compactor.ensemble.sync()
        figures.compactorSeconds = (ContinuousClock.now - began).sandboxSeconds
        figures.wroteBaseline = compacted.wroteBaseline
        compactor.close()
        figures.cloudAfterBaseline = try await server.census()
        figures.eventFilesAfterBaseline = try await server.census(of: "SandboxSync/events").files
        for peer in remote { peer.close() }
        remote.removeAll()

        run.step(0, of: 1, "a new peer's first sync")
        let request = FirstSyncProbe.Request(stack: stack.kind.rawValue, storeURL: run.scratch.newFile("sync-newcomer"), cloud: server.address,
                                             dumpURL: run.scratch.newFile("sync-newcomer-dump").deletingPathExtension().appendingPathExtension("txt"))
        let first = if let executable = run.probeExecutable {
            try await FirstSyncProbe.spawn(executable: executable, request: request, scratch: run.scratch)
        } else {
            try await FirstSyncProbe.run(request, model: run.model)
        }
        figures.firstSyncSeconds = first.seconds
        figures.firstSyncRSSAtStart = first.rssAtStartBytes
        figures.firstSyncPeakRSS = first.peakRSSBytes
        figures.firstSyncPeakScope = run.probeExecutable == nil ? first.peakScope : "its own process"
        figures.firstSyncFromBaseline = first.mergedBaseline
        figures.firstSyncBooks = first.books
        if try String(contentsOf: request.dumpURL, encoding: .utf8) != reference { diverged.append("newcomer") }

        // 7. Capture cost.
        run.step(0, of: 1, "capture cost")
        figures.capture = try await SyncCaptureCost.measure(run)

        var check = "ok"
        if !diverged.isEmpty { check = "peers diverged from peer-0: \(diverged.joined(separator: ", "))" }
        else if figures.localBooks != books.count || figures.firstSyncBooks != books.count {
            check = "peer-0 holds \(figures.localBooks) books, the new peer \(figures.firstSyncBooks), of \(books.count)"
        } else if figures.inserts.report.objectsWritten < books.count || figures.updates.report.objectsWritten < books.count {
            check = "the backlog merges wrote \(figures.inserts.report.objectsWritten) and \(figures.updates.report.objectsWritten) objects"
        } else if figures.noOpMerged != 0 {
            check = "the no-op syncs merged \(figures.noOpMerged) files or objects"
        } else if !figures.wroteBaseline || !figures.firstSyncFromBaseline {
            check = "no baseline was written (\(figures.wroteBaseline)) or the new peer did not merge it (\(figures.firstSyncFromBaseline))"
        }
        return ScenarioOutcome(objects: books.count, measuredSeconds: figures.inserts.seconds, check: check,
                               detail: figures.detail, counters: figures.counters)
    }

    /// One sync of `peer`, timed, with a heartbeat on the main queue from before the sync
    /// until its save has reached main and main has run what it queued (the list's refetch).
    static func measuredSync(_ peer: SyncScenarioPeer, server: SyncCloud) async throws -> SyncFigures.Merge {
        let merges = peer.mergesIntoMain
        let activity = await peer.ensemble.activity()
        // The sync's phases as they begin, timed from the sync's start (where the time goes).
        let phases = Task { () -> [(String, ContinuousClock.Instant)] in
            var seen: [(String, ContinuousClock.Instant)] = []
            for await event in activity {
                switch event {
                case .progress(_, let phase): seen.append((phase.rawValue, .now))
                case .ended: seen.append(("end", .now)); return seen
                case .began: break
                }
            }
            return seen
        }
        let heartbeat = Heartbeat()
        heartbeat.start()
        let traffic = server.traffic
        let began = ContinuousClock.now
        let report = try await peer.ensemble.sync()
        let seconds = (ContinuousClock.now - began).sandboxSeconds
        let moved = server.traffic - traffic
        let marks = await phases.value
        let phaseSeconds = zip(marks, marks.dropFirst()).map { ($0.0, ($1.1 - $0.1).sandboxSeconds) }
        await peer.settleMain(mergesBefore: merges)
        try? await Task.sleep(for: .milliseconds(20))   // the list's refetch, queued on main after the merge
        _ = try? await peer.stack.mainContext.perform { () }
        return SyncFigures.Merge(report: report, seconds: seconds, stalls: heartbeat.stop(), phases: phaseSeconds, traffic: moved)
    }
}

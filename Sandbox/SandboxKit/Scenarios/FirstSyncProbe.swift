import Foundation
import Strata
import StrataStacks
import StrataSync
import StrataTestServers

/// A new device's first sync in the `sync` scenario: it opens a stack on an empty store,
/// attaches to the cloud and syncs once, from the baseline the other peers left.
///
/// Run by the Sandbox command, it runs in a child process of the Sandbox executable
/// (`Sandbox --first-sync-probe REQUEST.json`), so its peak memory is a device's own: in the
/// scenario's process the other peers' stores, contexts and source data are resident too (at
/// 100 000 books, about 190 MB of them). Tests, which run scenarios in their own process,
/// run it in that process (``run(_:model:)``) and report the sync's peak there.
///
/// For example:
/// ```swift
/// let report = try await FirstSyncProbe.spawn(executable: sandbox, request: request)
/// print(report.seconds, report.peakRSSBytes)
/// ```
public enum FirstSyncProbe {
    /// What to sync: the stack, an empty store, the cloud, and where to write the store's
    /// canonical dump for the scenario's check.
    struct Request: Codable, Sendable {
        var stack: String
        var storeURL: URL
        var cloud: SyncCloudAddress
        var dumpURL: URL
    }

    /// What the first sync did.
    struct Report: Codable, Sendable {
        var seconds: Double
        /// The peak resident memory: the whole child process's (`process`), or the sync's
        /// own in a shared process (`sync`, or `process` where the peak cannot be reset).
        var peakRSSBytes: UInt64
        var peakScope: String
        /// Resident memory when the sync began (the opened stack; in a shared process, all of it).
        var rssAtStartBytes: UInt64
        var books: Int
        var mergedBaseline: Bool
    }

    /// How long a child may take before it is killed (a first sync of a million objects takes
    /// about a minute).
    static let timeoutSeconds = 1_800

    /// Runs `request` in a child process of `executable` (the Sandbox) and reads its report.
    static func spawn(executable: URL, request: Request, scratch: ScratchDirectory) async throws -> Report {
        func file(_ name: String, _ suffix: String) -> URL { scratch.newFile(name).deletingPathExtension().appendingPathExtension(suffix) }
        let requestURL = file("first-sync-request", "json"), outputURL = file("first-sync-report", "json"), errorURL = file("first-sync-errors", "txt")
        try JSONEncoder().encode(request).write(to: requestURL)
        for url in [outputURL, errorURL] where !FileManager.default.createFile(atPath: url.path, contents: nil) {
            throw SandboxError("cannot create \(url.path)")
        }
        let output = try FileHandle(forWritingTo: outputURL), errors = try FileHandle(forWritingTo: errorURL)
        // A ChildProcess, not Foundation's Process: see its documentation.
        let child = try ChildProcess([executable.path, "--first-sync-probe", requestURL.path],
                                     standardOutput: .descriptor(output.fileDescriptor), standardError: .descriptor(errors.fileDescriptor))
        try output.close()
        try errors.close()
        // A child that hangs is killed, so that the run reports it instead of waiting for ever.
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(Self.timeoutSeconds)) { child.signal(SIGKILL) }
        let ended = await child.ended()
        let printed = (try? Data(contentsOf: outputURL)) ?? Data()
        guard ended.succeeded else {
            let errors = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            let how = ended == .signalled(SIGKILL) ? "\(ended) (after \(Self.timeoutSeconds) s if it hung)" : "\(ended)"
            throw SandboxError("the first-sync child process (\(executable.path)) \(how): \(errors)")
        }
        do {
            return try JSONDecoder().decode(Report.self, from: printed)
        } catch {
            throw SandboxError("the first-sync child process printed no report (\(error)): \(String(decoding: printed, as: UTF8.self))")
        }
    }

    /// The child process's work: reads the request at `requestPath`, syncs, and prints the
    /// report as JSON on standard output. The Sandbox command calls it for `--first-sync-probe`.
    public static func runChild(requestPath: String) async throws {
        let request = try JSONDecoder().decode(Request.self, from: Data(contentsOf: URL(fileURLWithPath: requestPath)))
        let report = try await run(request, model: try SandboxModel.make(), resetsPeak: false)
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
    }

    /// Syncs a new peer as `request` says, in this process. `resetsPeak`: the peak counts
    /// from the sync's start (a shared process) rather than from the process's.
    static func run(_ request: Request, model: ObjectModel, resetsPeak: Bool = true) async throws -> Report {
        guard let kind = StackKind(rawValue: request.stack) else { throw SandboxError("unknown stack \(request.stack)") }
        let stack = try await Stacks.open(kind, model: model, storeURL: request.storeURL, options: SyncScenarioPeer.stackOptions)
        let newcomer = try await SyncScenarioPeer(name: "newcomer", stack: stack, cloud: request.cloud.makeCloudFileSystem())
        defer { newcomer.close() }
        PeakMemory.releaseFreedMemory()
        let rssAtStart = PeakMemory.currentBytes() ?? 0
        let scope = resetsPeak ? (PeakMemory.resetPeak() ? "sync" : "process") : "process"
        let began = ContinuousClock.now
        try await newcomer.ensemble.attach()
        let first = try await newcomer.ensemble.sync()
        let seconds = (ContinuousClock.now - began).sandboxSeconds
        let peak = PeakMemory.peakBytes() ?? 0
        try Data(try await newcomer.ensemble.canonicalDump().utf8).write(to: request.dumpURL)
        return Report(seconds: seconds, peakRSSBytes: peak, peakScope: scope, rssAtStartBytes: rssAtStart,
                      books: try await newcomer.bookCount(), mergedBaseline: first.mergedBaseline)
    }
}

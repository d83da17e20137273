import ArgumentParser
import Foundation
import SandboxKit
import StrataStacks

/// `swift run -c release Sandbox`: runs scenarios on Strata's stacks and prints one
/// comparison table (or JSON lines, or an HTML report). With no arguments: `import` with
/// 100,000 objects on all three stacks, plus the baselines.
///
/// The command is async, so the main queue is serviced while scenarios run off it.
@main
struct SandboxCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "Sandbox",
        abstract: "Compares Strata's context stacks side by side.",
        discussion: "Scenarios: " + ScenarioRegistry.all.map { "\($0.name) — \($0.summary)" }.joined(separator: "; ")
            + ". Progress goes to standard error.")

    @Option(help: "mainContext, asyncSaving, hybrid or all.")
    var stack = "all"

    @Option(help: "A scenario name, several joined by commas (run in that order, in one process), or all. Default: baseline and import.")
    var scenario: String?

    @Option(help: "Objects per run.")
    var objects = 100_000

    @Option(help: "Objects per save (and the paging scenario's page size).")
    var batch = 1000

    @Option(help: "Peers of the sync scenario (at least 2).")
    var peers = 3

    @Option(help: "The sync scenario's cloud: local (a folder), webdav (nginx on loopback) or s3 (moto on loopback).")
    var backend = "local"

    @Option(help: "Seed of the generated data.")
    var seed: UInt64 = 1

    @Option(help: "Hybrid stack import merges: everySave, notifyOnly, or coalesced:MS.")
    var mergeMode = "everySave"

    @Flag(help: "Print one JSON object per run instead of the table.")
    var json = false

    @Option(help: "Write a self-contained HTML report to this file.")
    var report: String?

    @Flag(help: "No progress on standard error.")
    var quiet = false

    @Option(name: .customLong("repeat"), help: "Measure every run N times: the table shows medians, then min / median / max (the noise --compare judges by).")
    var repeats = 1

    @Option(help: "Keep this invocation's results (versioned JSON, every repeat) in this file for a later --compare.")
    var jsonOut: String?

    @Option(help: "Print each figure next to the one in this file (written by --json-out), with the change and whether it moved beyond the noise.")
    var compare: String?

    /// The `sync` scenario's child process: syncs a new device as the JSON request file says.
    @Option(help: .hidden)
    var firstSyncProbe: String?

    func validate() throws {
        guard objects > 0 else { throw ValidationError("--objects must be at least 1") }
        guard repeats > 0 else { throw ValidationError("--repeat must be at least 1") }
        guard batch > 0 else { throw ValidationError("--batch must be at least 1") }
        guard peers >= 2 else { throw ValidationError("--peers must be at least 2") }
        guard SyncBackend(rawValue: backend) != nil else {
            throw ValidationError("unknown backend \(backend): \(SyncBackend.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// Runs the async work while the main thread runs its run loop, which drains the main
    /// queue (the heartbeat and the main contexts run there). The entry point is synchronous
    /// on purpose: an async `main` parks the main thread in `dispatch_main`, which valgrind
    /// 3.19 cannot run, and callgrind profiles this executable (docs/performance.md).
    func run() throws {
        try MainThreadBridge.run { try await self.runAsync() }
    }

    func runAsync() async throws {
        if let firstSyncProbe { return try await FirstSyncProbe.runChild(requestPath: firstSyncProbe) }
        let earlier = try compare.map { try StoredRun.read(from: URL(fileURLWithPath: $0)) }   // before minutes of work
        var options = SandboxOptions()
        options.objects = objects
        options.batch = batch
        options.seed = seed
        options.peers = peers
        options.syncBackend = SyncBackend(rawValue: backend) ?? .local
        // This very image, even if the file is rebuilt during a long run.
        options.probeExecutable = URL(fileURLWithPath: "/proc/self/exe")
        options.progress = quiet ? .off : isatty(STDERR_FILENO) == 1 ? .live : .lines
        if options.progress == .live { options.progressLog = ProgressLog(style: .live, width: Self.terminalWidth()) }
        if stack != "all" {
            guard let kind = StackKind(rawValue: stack) else { throw ValidationError("unknown stack \(stack)") }
            options.stacks = [kind]
        }
        if let scenario {
            options.scenarios = scenario == "all" ? ScenarioRegistry.names : scenario.split(separator: ",").map(String.init)
        }
        options.importMergeMode = try Self.mergeMode(mergeMode)
        var passes: [[RunRecord]] = []
        for pass in 1...repeats {
            if repeats > 1 { options.progressSuffix = "(repeat \(pass)/\(repeats))" }
            passes.append(try await SandboxRunner(options: options).run())
        }
        let runs = RepeatedResult.aggregate(passes.map { $0.map(\.result) })
        let records = RepeatedResult.medianRecords(passes, runs: runs)
        let results = runs.map(\.result)
        let comparison = earlier.map { RunComparison(earlier: $0, now: runs) }
        let command = (["Sandbox"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
        if json {
            for line in try JSONLines.lines(results) { print(line) }
            // Standard output stays JSON lines: the comparison goes to standard error.
            if let comparison { FileHandle.standardError.write(Data((comparison.render() + "\n").utf8)) }
        } else {
            let table = ComparisonTable(results)
            print(table.render())
            for note in table.footnotes() { print("  " + note) }
            if repeats > 1 { print("\n" + RepeatTable(runs).render()) }
            if let comparison { print("\n" + comparison.render()) }
        }
        if let jsonOut {
            try StoredRun(command: command, runs: runs).write(to: URL(fileURLWithPath: jsonOut))
        }
        if let report {
            try HTMLReport(records: records, command: command, runs: repeats > 1 ? runs : [], comparison: comparison)
                .write(to: URL(fileURLWithPath: report))
        }
    }

    /// Standard error's terminal width in columns, or nil.
    static func terminalWidth() -> Int? {
        var size = winsize()
        guard ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    static func mergeMode(_ text: String) throws -> ImportMergeMode {
        switch text {
        case "everySave": return .everySave
        case "notifyOnly": return .notifyOnly
        default:
            if text.hasPrefix("coalesced:"), let ms = Int(text.dropFirst("coalesced:".count)), ms > 0 { return .coalesced(milliseconds: ms) }
            throw ValidationError("unknown --merge-mode \(text)")
        }
    }
}

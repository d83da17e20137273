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

    @Option(help: "A scenario name, or all. Default: baseline and import.")
    var scenario: String?

    @Option(help: "Objects per run.")
    var objects = 100_000

    @Option(help: "Objects per save (and the paging scenario's page size).")
    var batch = 1000

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

    func validate() throws {
        guard objects > 0 else { throw ValidationError("--objects must be at least 1") }
        guard batch > 0 else { throw ValidationError("--batch must be at least 1") }
    }

    /// Runs the async work while the main thread runs its run loop, which drains the main
    /// queue (the heartbeat and the main contexts run there). The entry point is synchronous
    /// on purpose: an async `main` parks the main thread in `dispatch_main`, which valgrind
    /// 3.19 cannot run, and callgrind profiles this executable (docs/performance.md).
    func run() throws {
        try MainThreadBridge.run { try await self.runAsync() }
    }

    func runAsync() async throws {
        var options = SandboxOptions()
        options.objects = objects
        options.batch = batch
        options.seed = seed
        options.progress = quiet ? .off : isatty(STDERR_FILENO) == 1 ? .live : .lines
        if stack != "all" {
            guard let kind = StackKind(rawValue: stack) else { throw ValidationError("unknown stack \(stack)") }
            options.stacks = [kind]
        }
        if let scenario {
            options.scenarios = scenario == "all" ? ScenarioRegistry.names : [scenario]
        }
        options.importMergeMode = try Self.mergeMode(mergeMode)
        let records = try await SandboxRunner(options: options).run()
        let results = records.map(\.result)
        if json {
            for line in try JSONLines.lines(results) { print(line) }
        } else {
            let table = ComparisonTable(results)
            print(table.render())
            for note in table.footnotes() { print("  " + note) }
        }
        if let report {
            let command = (["Sandbox"] + CommandLine.arguments.dropFirst()).joined(separator: " ")
            try HTMLReport(records: records, command: command).write(to: URL(fileURLWithPath: report))
        }
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

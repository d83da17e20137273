import Foundation
import Strata
import StrataStacks

/// Runs the selected scenarios on the selected stacks, each run on a fresh store and stack,
/// and measures them: wall time, rate and ratio to raw SQLite, main-queue busy time, the
/// heartbeat's stalls, peak RSS, objects left in main, merges.
///
/// All orchestration runs off the main queue; the main queue only runs the heartbeat, the
/// main context's work and the UI's fetched list.
///
/// For example:
/// ```swift
/// var options = SandboxOptions()
/// options.objects = 1000
/// let records = try await SandboxRunner(options: options).run()
/// print(ComparisonTable(records.map(\.result)).render())
/// ```
public struct SandboxRunner: Sendable {
    /// What to run.
    public let options: SandboxOptions

    /// A runner for `options`.
    public init(options: SandboxOptions) { self.options = options }

    /// Runs everything and returns one record per run, in order.
    public func run() async throws -> [RunRecord] {
        let scenarios = try options.scenarios.map { name -> any Scenario.Type in
            guard let type = ScenarioRegistry.scenario(named: name) else {
                throw SandboxError("unknown scenario \(name); known: \(ScenarioRegistry.names.joined(separator: ", "))")
            }
            return type
        }
        let scratch = try options.storeDirectory.map(ScratchDirectory.init(keeping:)) ?? ScratchDirectory()
        defer { scratch.remove() }   // leaves a caller's `storeDirectory` alone
        let model = try SandboxModel.make()
        let data = SourceData(books: options.objects, seed: options.seed)
        let log = options.progressLog ?? ProgressLog(style: options.progress)
        var context = RunContext(model: model, data: data, scratch: scratch, log: log, rawRate: nil)
        // The reference rate: the baseline's raw SQLite row when it runs, otherwise measured first,
        // silently — unless every variant selected compares with a counterpart of its own.
        let needsReference = scenarios.contains { type in type.variants.contains { $0.baseline == nil } }
        if needsReference, !scenarios.contains(where: { $0 == BaselineScenario.self }) {
            let seconds = try await RawSQLiteInsert.bestOf(RawSQLiteInsert.repetitions, data, scratch: scratch, model: model)
            context.rawRate = Double(data.books.count) / max(1e-9, seconds)
        }
        var records: [RunRecord] = []
        for type in scenarios {
            var variantRates: [String: Double] = [:]   // stackless variants of this scenario, by name
            for variant in type.variants {
                let kinds: [StackKind?] = variant.usesStack ? options.stacks.map { $0 } : [nil]
                for kind in kinds {
                    let record = try await runOne(type.init(), variant: variant.name, kind: kind, context: context)
                    if type == BaselineScenario.self, variant.name == BaselineScenario.rawVariant {
                        context.rawRate = record.result.objectsPerSecond
                    }
                    if let name = variant.name, kind == nil { variantRates[name] = record.result.objectsPerSecond }
                    let reference = variant.baseline.map { variantRates[$0] } ?? context.rawRate
                    records.append(record.withRatio(to: reference))
                }
            }
        }
        return records
    }

    /// What every run shares.
    struct RunContext {
        let model: ObjectModel
        let data: SourceData
        let scratch: ScratchDirectory
        let log: ProgressLog
        var rawRate: Double?
    }

    private func runOne(_ scenario: any Scenario, variant: String?, kind: StackKind?, context: RunContext) async throws -> RunRecord {
        let name = type(of: scenario).name
        let label = [name, variant, kind?.rawValue].compactMap { $0 }.joined(separator: "/")
        let shownLabel = options.progressSuffix.map { "\(label) \($0)" } ?? label
        context.log.begin(shownLabel, note: "\(shownLabel): \(context.data.books.count) objects, batch \(options.batch)")
        let progress = ProgressCounter()
        let sampler = Self.sample(progress, into: context.log)
        defer { sampler?.cancel(); context.log.interrupt() }
        let url = context.scratch.newFile(label.replacingOccurrences(of: "/", with: "-"))
        let clock = MainQueueClock()
        let list = FetchedList(clock: clock)
        var stack: (any CoreStack)?
        if let kind {
            var stackOptions = StackOptions()
            stackOptions.importMergeMode = options.importMergeMode
            stackOptions.onImport = { [list] _ in list.changed() }
            stackOptions.storeOptions.recordsHistory = type(of: scenario).recordsHistory
            stack = try await Stacks.open(kind, model: context.model, storeURL: url, options: stackOptions)
        }
        let run = ScenarioRun(stack: stack, storeURL: url, model: context.model, data: context.data, batch: options.batch,
                              variant: variant, scratch: context.scratch, log: context.log, label: label, progress: progress,
                              peers: options.peers, importMergeMode: options.importMergeMode,
                              syncBackend: options.syncBackend, probeExecutable: options.probeExecutable)
        try await scenario.prepare(run)
        let observer = MainObserver(stack: stack, list: list, clock: clock, mergeMode: options.importMergeMode)
        if let stack { list.attach(to: stack.mainContext) }
        await observer.settle()

        let before = observer.snapshot()
        PeakMemory.releaseFreedMemory()
        let rssAtStart = PeakMemory.currentBytes() ?? 0
        let perRunPeak = PeakMemory.resetPeak()
        let heartbeat = Heartbeat()
        heartbeat.start()
        let started = ContinuousClock.now
        context.log.measuring()
        var outcome = try await scenario.perform(run)
        let elapsed = (ContinuousClock.now - started).sandboxSeconds
        await observer.settle()
        let stalls = heartbeat.stop()
        let after = observer.snapshot()
        let peak = PeakMemory.peakBytes() ?? 0
        let registered = await observer.registeredInMain()
        list.detach()
        outcome = try await scenario.verify(run, outcome)
        observer.close()

        let wall = outcome.measuredSeconds ?? elapsed
        let busy = after.busySeconds - before.busySeconds
        let result = RunResult(
            stack: kind?.rawValue ?? "none", scenario: name, variant: variant, objects: outcome.objects, batch: options.batch,
            wallSeconds: wall, objectsPerSecond: Double(outcome.objects) / max(wall, 1e-9),
            rawObjectsPerSecond: 0, ratioToRaw: 0,
            mainBusySeconds: busy, mainBusyShare: busy / max(wall, 1e-9),
            heartbeats: stalls.beats, stallP50Ms: stalls.p50Ms, stallP99Ms: stalls.p99Ms, stallMaxMs: stalls.maxMs,
            stallsOver16Ms: stalls.over16Ms, stallsOver100Ms: stalls.over100Ms, stallsOver250Ms: stalls.over250Ms,
            peakRSSBytes: peak, rssAtStartBytes: rssAtStart, peakRSSScope: perRunPeak ? "run" : "process",
            registeredInMain: registered,
            mergesIntoMain: after.merges - before.merges + outcome.pushesThroughMain,
            mainChangeSets: after.changeSets - before.changeSets,
            mainQueueWrites: after.mainQueueWrites - before.mainQueueWrites,
            check: outcome.check, detail: outcome.detail, counters: outcome.counters)
        sampler?.cancel()
        context.log.end("\(shownLabel): \(String(format: "%.2f", wall)) s, max stall \(String(format: "%.1f", stalls.maxMs)) ms, check \(outcome.check)")
        return RunRecord(result: result, timeline: stalls.timeline, heartbeatSeconds: stalls.durationSeconds, storeURL: url)
    }

    /// Reads `counter` into `log` every 100 ms until cancelled (nil when the log is off): the
    /// scenario only stores numbers; the timer, off the main queue, does the formatting and writing.
    private static func sample(_ counter: ProgressCounter, into log: ProgressLog) -> Task<Void, Never>? {
        guard log.style != .off else { return nil }
        return Task.detached(priority: .utility) {
            while !Task.isCancelled {
                log.update(counter.snapshot())
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}

extension RunRecord {
    /// The record with its ratio to the raw SQLite rate filled in.
    func withRatio(to rawRate: Double?) -> RunRecord {
        var copy = self
        let raw = rawRate ?? 0
        copy.result.rawObjectsPerSecond = raw
        copy.result.ratioToRaw = raw > 0 ? result.objectsPerSecond / raw : 0
        return copy
    }
}

/// StrataBench: measures Strata's import and fetch throughput against raw SQLite on the same
/// rows, in the same run. See docs/performance.md for how to run it and what it found.
import Foundation
import Strata

/// Runs the selected benchmarks in order (the raw baselines first) on fresh store files.
func runBenchmarks(_ options: Options) -> [Measurement] {
    let data = BenchData(count: options.objects)
    let model = makeBenchModel()
    let directory = ScratchDirectory()
    defer { directory.remove() }
    let runs = options.runs
    var measurements: [Measurement] = []
    func record(_ name: String, _ baseline: String?, _ durations: [Duration]) {
        measurements.append(Measurement(name: name, baseline: baseline, objects: options.objects, durations: durations))
    }
    if options.runs("raw-insert") { record("raw-insert", nil, rawInsert(data, in: directory, runs: runs)) }
    if options.runs("raw-read") { record("raw-read", nil, rawRead(data, in: directory, runs: runs)) }
    if options.runs("engine-insert") {
        record("engine-insert", "raw-insert", engineInsert(data, model: model, in: directory, runs: runs, batch: options.batch))
    }
    if options.runs("engine-batch-insert") {
        record("engine-batch-insert", "raw-insert", engineBatchInsert(data, model: model, in: directory, runs: runs))
    }
    if options.runs("engine-fetch") {
        record("engine-fetch", "raw-read", engineFetch(data, model: model, in: directory, runs: runs, batchSize: 0))
    }
    if options.runs("engine-fetch-batched") {
        record("engine-fetch-batched", "raw-read", engineFetch(data, model: model, in: directory, runs: runs, batchSize: 500))
    }
    return measurements
}

let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
ObjectContext.concurrencyDebugging = false
Report(measurements: runBenchmarks(options), options: options).print()

/// Timing helpers and the result of one benchmark: best and median wall-clock time over
/// several runs, objects per second, and the ratio to the raw SQLite baseline.
import Foundation

/// The timings of one benchmark.
struct Measurement {
    let name: String
    /// Name of the raw SQLite measurement this one is compared to (nil for the baselines).
    let baseline: String?
    let objects: Int
    /// One duration per run, in seconds, sorted.
    let seconds: [Double]

    init(name: String, baseline: String?, objects: Int, durations: [Duration]) {
        self.name = name
        self.baseline = baseline
        self.objects = objects
        self.seconds = durations.map(\.seconds).sorted()
    }

    var best: Double { seconds[0] }
    var median: Double {
        let n = seconds.count
        return n % 2 == 1 ? seconds[n / 2] : (seconds[n / 2 - 1] + seconds[n / 2]) / 2
    }
    var bestRate: Double { Double(objects) / best }
    var medianRate: Double { Double(objects) / median }
}

extension Duration {
    /// The duration in seconds.
    var seconds: Double {
        let (s, attoseconds) = components
        return Double(s) + Double(attoseconds) * 1e-18
    }
}

/// Runs `once` `runs` times; each call does its own untimed setup and returns the time it measured.
func repeated(_ runs: Int, _ once: () -> Duration) -> [Duration] {
    (0..<runs).map { _ in once() }
}

/// Times `body` with the wall clock.
@inline(__always)
func timed(_ body: () throws -> Void) rethrows -> Duration {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return clock.now - start
}

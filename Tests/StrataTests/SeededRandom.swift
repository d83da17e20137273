import Foundation
import StrataRandom

/// The tests' seeded generator: the project's SplitMix64, so differential and stress tests
/// are reproducible, with a few helpers.
typealias SeededRandom = SplitMix64

extension SplitMix64 {
    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }

    mutating func pick<T>(_ values: [T]) -> T { values[Int.random(in: 0..<values.count, using: &self)] }

    /// The seeds to run: `STRATA_SEED` if set, else `defaults`.
    static func seeds(_ defaults: [UInt64]) -> [UInt64] {
        if let text = ProcessInfo.processInfo.environment["STRATA_SEED"], let seed = UInt64(text) { return [seed] }
        return defaults
    }
}

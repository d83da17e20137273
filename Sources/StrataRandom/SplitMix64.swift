/// The project's one seeded generator, shared by the Sandbox (its generated rows) and the
/// tests (reproducible random sequences). Not part of any library product.

/// A small seeded generator (SplitMix64), so runs repeat exactly.
///
/// For example:
/// ```swift
/// var generator = SplitMix64(seed: 7)
/// let roll = generator.next() % 6
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64
    /// Creates a generator from a seed.
    public init(seed: UInt64) { state = seed }
    /// The generator of `seed` after `draws` calls of ``next()``, reached at once (the state
    /// advances by a constant per draw), so the `n`th value of a sequence can be computed
    /// without the ones before it.
    ///
    /// ```swift
    /// var later = SplitMix64(seed: 7, skipping: 3_000)   // as if next() had been called 3 000 times
    /// ```
    public init(seed: UInt64, skipping draws: UInt64) { state = seed &+ draws &* Self.gamma }
    private static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= Self.gamma
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How costly it is to turn the password into the key: scrypt's parameters.
///
/// An ``EncryptedCloudFileSystem`` derives its key once per instance (and once per key file
/// it meets), so the cost is paid at the first call, not per file. The cost is written in the
/// key file by the peer that creates it, and every other peer reads it from there: changing
/// this value affects only a cloud that has no key file yet.
///
/// ``standard`` is N = 2¹⁷, r = 8, p = 1: 128 MiB of memory and up to about a second, the
/// minimum OWASP's password storage guidance gives for scrypt: each password guess against a
/// stolen cloud costs as much. Use ``minimal`` in tests only: it makes guessing cheap.
///
/// For example:
/// ```swift
/// let cloud = EncryptedCloudFileSystem(wrapping: folder, password: "correct horse",
///                                      cost: KeyDerivationCost(log2Rounds: 18))
/// ```
public struct KeyDerivationCost: Sendable, Hashable, CustomStringConvertible {
    /// log₂ of scrypt's N (the number of rounds, a power of two).
    public let log2Rounds: Int
    /// scrypt's r (the block size, in units of 128 bytes).
    public let blockSize: Int
    /// scrypt's p (independent lanes run one after another).
    public let parallelism: Int

    /// N = 2¹⁷, r = 8, p = 1 (128 MiB, up to about a second).
    public static let standard = KeyDerivationCost(log2Rounds: 17, blockSize: 8, parallelism: 1)
    /// N = 2¹⁰, r = 8, p = 1 (1 MiB, about a millisecond): for tests only.
    public static let minimal = KeyDerivationCost(log2Rounds: 10, blockSize: 8, parallelism: 1)

    /// The most memory a key file may ask scrypt for (1 GiB): a key file asking for more is
    /// refused as damaged, and a cost asking for more is lowered to it.
    public static let maxMemory = 1 << 30
    /// The highest accepted log₂ N, r and p.
    static let maxLog2Rounds = 24, maxBlockSize = 32, maxParallelism = 16

    /// A cost; values out of range are brought into it (log₂ N in 1...24, r in 1...32,
    /// p in 1...16, at most ``maxMemory`` for N and r together).
    ///
    /// ```swift
    /// let cost = KeyDerivationCost(log2Rounds: 16)
    /// ```
    public init(log2Rounds: Int, blockSize: Int = 8, parallelism: Int = 1) {
        let r = min(max(blockSize, 1), Self.maxBlockSize)
        var n = min(max(log2Rounds, 1), Self.maxLog2Rounds)
        while n > 1 && 128 * r << n > Self.maxMemory { n -= 1 }
        self.log2Rounds = n
        self.blockSize = r
        self.parallelism = min(max(parallelism, 1), Self.maxParallelism)
    }

    /// Why these parameters (read from a key file) are refused, or `nil` when accepted.
    static func problem(log2Rounds: Int, blockSize: Int, parallelism: Int) -> String? {
        guard (1...maxLog2Rounds).contains(log2Rounds), (1...maxBlockSize).contains(blockSize),
              (1...maxParallelism).contains(parallelism) else {
            return "scrypt parameters out of range (log2 N \(log2Rounds), r \(blockSize), p \(parallelism))"
        }
        if 128 * blockSize << log2Rounds > maxMemory { return "scrypt parameters ask for more than \(maxMemory >> 20) MiB" }
        return nil
    }

    public var description: String { "scrypt N=2^\(log2Rounds) r=\(blockSize) p=\(parallelism)" }
}

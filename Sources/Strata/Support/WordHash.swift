/// A cheap hash of one machine word for sets and dictionaries of the engine's identities
/// (object IDs, objects): murmur3's 64-bit finaliser, so every input bit reaches every output
/// bit, in a few multiplies instead of a full `Hasher` round. The values hashed come from this
/// process (row keys, object addresses), not from an adversary, so a keyed hash buys nothing
/// here; the table's seed still varies the result, as the standard library expects.
///
/// For example:
/// ```swift
/// public func _rawHashValue(seed: Int) -> Int { WordHash.mix(word, seed: seed) }
/// ```
enum WordHash {
    @inline(__always)
    static func mix(_ word: UInt64, seed: Int) -> Int {
        var x = word ^ UInt64(bitPattern: Int64(seed))
        x ^= x &>> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x &>> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x &>> 33
        return Int(truncatingIfNeeded: x)
    }
}

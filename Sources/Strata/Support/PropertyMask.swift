/// A small bit set of property positions: the first 64 in a word (no allocation), the rest
/// in an array.
struct PropertyMask: Sendable, Equatable {
    private var low: UInt64 = 0
    private var high: [UInt64] = []

    /// The positions `0..<count`.
    static func all(_ count: Int) -> PropertyMask {
        var mask = PropertyMask()
        if count <= 64 {
            mask.low = count == 64 ? .max : (1 << UInt64(count)) - 1
        } else {
            for i in 0..<count { mask.insert(i) }
        }
        return mask
    }

    mutating func insert(_ i: Int) {
        if i < 64 { low |= 1 << UInt64(i); return }
        let w = (i >> 6) - 1
        if w >= high.count { high.append(contentsOf: repeatElement(0, count: w - high.count + 1)) }
        high[w] |= 1 << UInt64(i & 63)
    }

    mutating func remove(_ i: Int) {
        if i < 64 { low &= ~(1 << UInt64(i)); return }
        let w = (i >> 6) - 1
        if w < high.count { high[w] &= ~(1 << UInt64(i & 63)) }
    }

    func contains(_ i: Int) -> Bool {
        if i < 64 { return low & (1 << UInt64(i)) != 0 }
        let w = (i >> 6) - 1
        return w < high.count && high[w] & (1 << UInt64(i & 63)) != 0
    }

    var isEmpty: Bool { low == 0 && high.allSatisfy { $0 == 0 } }

    /// Adds every position of `other`.
    mutating func formUnion(_ other: PropertyMask) {
        low |= other.low
        if other.high.count > high.count { high.append(contentsOf: repeatElement(0, count: other.high.count - high.count)) }
        for (w, bits) in other.high.enumerated() { high[w] |= bits }
    }

    /// The position, when the set holds exactly one among the first 64 (else `nil`).
    var onlyMember: Int? {
        guard low.nonzeroBitCount == 1, high.allSatisfy({ $0 == 0 }) else { return nil }
        return low.trailingZeroBitCount
    }

    /// The two positions, lower first, when the set holds exactly two among the first 64
    /// (else `nil`).
    var onlyPair: (Int, Int)? {
        guard low.nonzeroBitCount == 2, high.allSatisfy({ $0 == 0 }) else { return nil }
        let first = low.trailingZeroBitCount
        return (first, (low & (low - 1)).trailingZeroBitCount)
    }

    mutating func removeAll() {
        low = 0
        if !high.isEmpty { high.removeAll(keepingCapacity: true) }
    }
}

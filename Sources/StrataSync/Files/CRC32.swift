/// CRC-32 (IEEE 802.3, the zlib and PNG polynomial), written here so the change-file format
/// needs no extra dependency. It detects every single-bit error and every burst up to 32 bits,
/// which is what a truncated or damaged file looks like; it is not a defence against forgery
/// (names and identifiers inside a file are validated separately).
///
/// Every downloaded change file, baseline and blob is checked with it, so it reads contiguous
/// bytes (`Data`, arrays, their slices) in place, eight at a time ("slicing by 8": eight tables,
/// one lookup per byte, no dependency between them); other sequences go byte by byte.
///
/// For example:
/// ```swift
/// let sum = CRC32.checksum(Array("123456789".utf8))   // 0xCBF43926
/// ```
public enum CRC32 {
    /// `tables[k][b]`: the CRC of byte `b` followed by `k` zero bytes; `tables[0]` is the
    /// classic byte-at-a-time table. Stored as one flat array of 8 × 256 entries.
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
            tables[index] = value
        }
        for k in 1..<8 {
            for index in 0..<256 {
                let previous = tables[(k - 1) * 256 + index]
                tables[k * 256 + index] = tables[Int(previous & 0xFF)] ^ (previous >> 8)
            }
        }
        return tables
    }()

    /// The CRC-32 of `bytes`, continuing from `previous` (the checksum of the bytes before).
    ///
    /// ```swift
    /// let whole = CRC32.checksum(tail, continuing: CRC32.checksum(head))
    /// ```
    public static func checksum(_ bytes: some Sequence<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
        tables.withUnsafeBufferPointer { tables in
            if let crc = bytes.withContiguousStorageIfAvailable({ update(~previous, with: $0, tables) }) {
                return ~crc
            }
            var crc = ~previous
            for byte in bytes { crc = tables[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            return ~crc
        }
    }

    /// Runs the (inverted) `crc` over `buffer`: eight bytes per step, then the rest one by one.
    private static func update(_ crc: UInt32, with buffer: UnsafeBufferPointer<UInt8>, _ t: UnsafeBufferPointer<UInt32>) -> UInt32 {
        var crc = crc
        var index = 0
        let count = buffer.count
        while index + 8 <= count {
            let low = crc ^ (UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8
                             | UInt32(buffer[index + 2]) << 16 | UInt32(buffer[index + 3]) << 24)
            crc = t[7 * 256 + Int(low & 0xFF)] ^ t[6 * 256 + Int((low >> 8) & 0xFF)]
                ^ t[5 * 256 + Int((low >> 16) & 0xFF)] ^ t[4 * 256 + Int(low >> 24)]
                ^ t[3 * 256 + Int(buffer[index + 4])] ^ t[2 * 256 + Int(buffer[index + 5])]
                ^ t[1 * 256 + Int(buffer[index + 6])] ^ t[Int(buffer[index + 7])]
            index += 8
        }
        while index < count {
            crc = t[Int((crc ^ UInt32(buffer[index])) & 0xFF)] ^ (crc >> 8)
            index += 1
        }
        return crc
    }
}

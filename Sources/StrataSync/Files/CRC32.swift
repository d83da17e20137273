/// CRC-32 (IEEE 802.3, the zlib and PNG polynomial), written here so the change-file format
/// needs no extra dependency. It detects every single-bit error and every burst up to 32 bits,
/// which is what a truncated or damaged file looks like; it is not a defence against forgery
/// (names and identifiers inside a file are validated separately).
///
/// For example:
/// ```swift
/// let sum = CRC32.checksum(Array("123456789".utf8))   // 0xCBF43926
/// ```
public enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xEDB8_8320 : value >> 1 }
        return value
    }

    /// The CRC-32 of `bytes`, continuing from `previous` (the checksum of the bytes before).
    ///
    /// ```swift
    /// let whole = CRC32.checksum(tail, continuing: CRC32.checksum(head))
    /// ```
    public static func checksum(_ bytes: some Sequence<UInt8>, continuing previous: UInt32 = 0) -> UInt32 {
        var crc = ~previous
        table.withUnsafeBufferPointer { table in
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        }
        return ~crc
    }
}

/// The identifier of one key file, and of every file sealed with its key: 64 random bits,
/// written big-endian in each sealed file's header and as 16 lowercase hex digits in the key
/// file's name (`strata-encryption-key-<hex>`). It says which key file to open; it is not
/// secret and reveals nothing about the key.
struct EncryptionKeyID: Hashable, Comparable, Sendable, CustomStringConvertible {
    let rawValue: UInt64

    init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A fresh random identifier.
    static func random() -> EncryptionKeyID {
        var generator = SystemRandomNumberGenerator()
        return EncryptionKeyID(rawValue: generator.next())
    }

    /// Parses exactly 16 lowercase hex digits.
    init?(hex: Substring) {
        guard hex.utf8.count == 16, hex.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }),
              let value = UInt64(hex, radix: 16) else { return nil }
        rawValue = value
    }

    /// Reads 8 big-endian bytes.
    init<Bytes: Collection<UInt8>>(bytes: Bytes) {
        rawValue = bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// 16 lowercase hex digits.
    var hex: String {
        let digits = String(rawValue, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The 8 big-endian bytes.
    var bytes: [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: rawValue >> (56 - 8 * $0)) } }

    var description: String { hex }
    static func < (lhs: EncryptionKeyID, rhs: EncryptionKeyID) -> Bool { lhs.rawValue < rhs.rawValue }
}

import Foundation

/// Variable-length integers and length-prefixed strings for event payloads: LEB128 for
/// unsigned values, zigzag for signed ones.
extension ByteWriter {
    mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    mutating func writeSigned(_ value: Int64) {
        writeVarint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func writeBytes(_ data: some Collection<UInt8>) {
        writeVarint(UInt64(data.count))
        bytes.append(contentsOf: data)
    }

    mutating func writeString(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            writeVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }
}

extension ByteReader {
    mutating func readVarint() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while shift < 64 {
            guard let byte = read(UInt8.self) else { return nil }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
        return nil
    }

    mutating func readSigned() -> Int64? {
        guard let raw = readVarint() else { return nil }
        return Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
    }

    /// A count no larger than the bytes left (each counted item takes at least one byte), so
    /// a forged count can't make a reader reserve memory the file does not back.
    mutating func readCount() -> Int? {
        guard let raw = readVarint(), raw <= UInt64(bytes.count - offset) else { return nil }
        return Int(raw)
    }

    mutating func readBytes() -> [UInt8]? {
        guard let count = readCount() else { return nil }
        return take(count)
    }

    mutating func readString() -> String? {
        guard let count = readCount() else { return nil }
        return readUTF8(count)
    }
}

import Foundation
import Strata

/// Appends little-endian integers and short strings (for the change-file header).
struct ByteWriter {
    var bytes: [UInt8] = []

    mutating func write<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A string of at most 255 bytes, prefixed with its length.
    mutating func writeShortString(_ text: String) {
        let utf8 = Array(text.utf8)
        write(UInt8(truncatingIfNeeded: utf8.count))
        bytes.append(contentsOf: utf8.prefix(255))
    }
}

/// Reads what ``ByteWriter`` wrote, returning `nil` past the end instead of trapping.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func read<T: FixedWidthInteger>(_: T.Type) -> T? {
        let size = MemoryLayout<T>.size
        guard bytes.count - offset >= size else { return nil }
        var value: T = 0
        for index in 0..<size { value |= T(bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }

    /// The next `count` bytes, or `nil` if fewer are left.
    mutating func take(_ count: Int) -> [UInt8]? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    /// The next varint-prefixed string (``readString()``); `candidate` itself when the bytes
    /// are its UTF-8, so no new string is made.
    mutating func readString(reusing candidate: String?) -> String? {
        guard var candidate else { return readString() }
        let start = offset
        guard let count = readCount() else { return nil }
        let same = candidate.withUTF8 { utf8 in
            utf8.count == count && bytes.withUnsafeBufferPointer { all in
                guard let mine = utf8.baseAddress, let theirs = all.baseAddress else { return count == 0 }
                return memcmp(mine, theirs + offset, count) == 0
            }
        }
        guard same else {
            offset = start
            return readString()
        }
        offset += count
        return candidate
    }

    mutating func readShortString() -> String? {
        guard let count = read(UInt8.self), bytes.count - offset >= Int(count) else { return nil }
        return readUTF8(Int(count))
    }

    /// The next `count` bytes as a string when they are valid UTF-8 (read in place); `nil` if
    /// they are not, or if fewer are left.
    mutating func readUTF8(_ count: Int) -> String? {
        guard count >= 0, bytes.count - offset >= count else { return nil }
        let start = offset
        offset += count
        return bytes.withUnsafeBufferPointer { StrictUTF8.string(UnsafeBufferPointer(rebasing: $0[start..<start + count])) }
    }
}

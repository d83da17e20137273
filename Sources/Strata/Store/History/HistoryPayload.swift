/// The changes of one history transaction packed into one blob, so that recording a save
/// costs one row, not one per object.
///
/// Layout (varints are LEB128, keys zigzag-encoded): a format byte (1); the names used (count,
/// then each as length and UTF-8); the changes (count, then each as operation byte, entity
/// name index, key, count of written keys and their name indexes). Names are stored once per
/// transaction, so a long import pays for "Book" once.
struct HistoryPayload {
    /// One recorded change, by names (a reader resolves them against its model).
    struct Entry: Equatable {
        var entity: String
        var key: Int64
        var operation: HistoryChange.Operation
        var keys: [String]
    }

    static let format: UInt8 = 1

    private var names: [String] = []
    private var nameIndex: [String: Int] = [:]
    private var body: [UInt8] = []
    private(set) var count = 0

    /// Adds a change; returns its position (members and tombstones refer to it).
    mutating func append(entity: String, key: Int64, _ operation: HistoryChange.Operation, keys: [String]) -> Int {
        body.append(UInt8(operation.rawValue))
        Self.writeVarint(UInt64(index(of: entity)), into: &body)
        Self.writeVarint(UInt64(bitPattern: (key << 1) ^ (key >> 63)), into: &body)
        Self.writeVarint(UInt64(keys.count), into: &body)
        for name in keys { Self.writeVarint(UInt64(index(of: name)), into: &body) }
        count += 1
        return count - 1
    }

    /// The blob.
    var bytes: [UInt8] {
        var out: [UInt8] = [Self.format]
        Self.writeVarint(UInt64(names.count), into: &out)
        for name in names {
            let utf8 = Array(name.utf8)
            Self.writeVarint(UInt64(utf8.count), into: &out)
            out += utf8
        }
        Self.writeVarint(UInt64(count), into: &out)
        return out + body
    }

    private mutating func index(of name: String) -> Int {
        if let index = nameIndex[name] { return index }
        names.append(name)
        nameIndex[name] = names.count - 1
        return names.count - 1
    }

    /// The entries of a blob; `nil` when it is not one this version can read (damaged, or
    /// written by a later format).
    static func entries(of bytes: [UInt8]) -> [Entry]? {
        var reader = ByteReader(bytes: bytes)
        guard reader.byte() == format, let nameCount = reader.varint(), nameCount <= UInt64(bytes.count) else { return nil }
        var names: [String] = []
        for _ in 0..<nameCount {
            guard let length = reader.varint(), let utf8 = reader.take(length), let name = String(validating: utf8, as: UTF8.self) else { return nil }
            names.append(name)
        }
        guard let count = reader.varint(), count <= UInt64(bytes.count) else { return nil }
        var entries: [Entry] = []
        for _ in 0..<count {
            guard let op = reader.byte(), let operation = HistoryChange.Operation(rawValue: Int(op)),
                  let entity = reader.name(in: names), let zigzag = reader.varint(), let keyCount = reader.varint(), keyCount <= UInt64(names.count)
            else { return nil }
            var keys: [String] = []
            for _ in 0..<keyCount {
                guard let name = reader.name(in: names) else { return nil }
                keys.append(name)
            }
            let key = Int64(bitPattern: zigzag >> 1) ^ -Int64(bitPattern: zigzag & 1)
            entries.append(Entry(entity: entity, key: key, operation: operation, keys: keys))
        }
        return reader.isAtEnd ? entries : nil
    }

    static func writeVarint(_ value: UInt64, into out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }
}

/// Reads a payload's bytes, answering `nil` past the end or for a malformed varint.
private struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() -> UInt64? {
        var result: UInt64 = 0
        for shift in stride(from: 0, to: 64, by: 7) {
            guard let byte = byte() else { return nil }
            result |= UInt64(byte & 0x7F) << UInt64(shift)
            if byte & 0x80 == 0 { return result }
        }
        return nil
    }

    mutating func take(_ count: UInt64) -> ArraySlice<UInt8>? {
        guard count <= UInt64(bytes.count - offset) else { return nil }
        defer { offset += Int(count) }
        return bytes[offset..<offset + Int(count)]
    }

    mutating func name(in names: [String]) -> String? {
        guard let index = varint(), index < UInt64(names.count) else { return nil }
        return names[Int(index)]
    }
}

/// The cells of one object — each property's winning value and its stamp — packed into one
/// blob of the state's `objects` row (schema 2 and later): a merge reads and writes an
/// object's row once, not one row per property.
///
/// Layout: `varint count · (property, zigzag lamport, zigzag ms, peer, value)…`, strings and the
/// value as a varint length and bytes, properties in UTF-8 order (one object packs the same
/// bytes on every peer).
///
/// The cells are kept in that order in an array: an object has a handful, so finding one by a
/// scan costs less than hashing its name, and packing needs no sort. Every merge of a backlog
/// unpacks and packs each object it touches.
///
/// For example:
/// ```swift
/// var cells = PackedCells()
/// cells.merge("title", value: [1], stamp: stamp)
/// PackedCells(cells.bytes)?.entries == cells.entries   // true
/// ```
struct PackedCells {
    struct Cell: Equatable {
        var stamp: Stamp
        var value: [UInt8]
    }

    struct Entry: Equatable {
        var property: String
        var cell: Cell
    }

    /// The cells in UTF-8 order of their properties, one per property.
    private(set) var entries: [Entry] = []

    init() {}

    /// Unpacks `bytes`; `nil` when they are not a packing (a damaged state): bad lengths or
    /// UTF-8, bytes left over, or properties not in strictly ascending order.
    init?(_ bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let count = reader.readCount() else { return nil }
        entries.reserveCapacity(count)
        for _ in 0..<count {
            guard let property = reader.readString(), let lamport = reader.readSigned(), let ms = reader.readSigned() else { return nil }
            // An object's cells mostly share a peer: its string is read once.
            guard let peer = reader.readString(reusing: entries.last?.cell.stamp.peer), let value = reader.readBytes() else { return nil }
            if let last = entries.last, UTF8Order.compare(last.property, property) >= 0 { return nil }
            entries.append(Entry(property: property, cell: Cell(stamp: Stamp(lamport: lamport, milliseconds: ms, peer: peer), value: value)))
        }
        guard reader.isAtEnd else { return nil }
    }

    var isEmpty: Bool { entries.isEmpty }

    /// The cell of `property`, if it has one (names compared by their bytes, as ``merge(_:value:stamp:)`` does).
    subscript(property: String) -> Cell? {
        entries.first { UTF8Order.compare($0.property, property) == 0 }?.cell
    }

    /// Sets `property` to `value` if `stamp` is newer than the cell's (or it has none).
    /// Returns whether it did.
    @discardableResult
    mutating func merge(_ property: String, value: [UInt8], stamp: Stamp) -> Bool {
        var index = entries.startIndex
        while index < entries.endIndex {
            let order = UTF8Order.compare(entries[index].property, property)
            if order == 0 {
                guard entries[index].cell.stamp < stamp else { return false }
                entries[index].cell = Cell(stamp: stamp, value: value)
                return true
            }
            if order > 0 { break }
            index += 1
        }
        entries.insert(Entry(property: property, cell: Cell(stamp: stamp, value: value)), at: index)
        return true
    }

    /// The packed bytes.
    var bytes: [UInt8] {
        var writer = ByteWriter()
        var size = 1
        for entry in entries { size += entry.property.utf8.count + entry.cell.stamp.peer.utf8.count + entry.cell.value.count + 24 }
        writer.bytes.reserveCapacity(size)
        writer.writeVarint(UInt64(entries.count))
        for entry in entries {
            writer.writeString(entry.property)
            writer.writeSigned(entry.cell.stamp.lamport)
            writer.writeSigned(entry.cell.stamp.milliseconds)
            writer.writeString(entry.cell.stamp.peer)
            writer.writeBytes(entry.cell.value)
        }
        return writer.bytes
    }

    /// The values by property.
    var values: [String: [UInt8]] {
        var values: [String: [UInt8]] = [:]
        values.reserveCapacity(entries.count)
        for entry in entries { values[entry.property] = entry.cell.value }
        return values
    }
}

/// The cells of one object — each property's winning value and its stamp — packed into one
/// blob of the state's `objects` row (schema 2 and later): a merge reads and writes an
/// object's row once, not one row per property.
///
/// Layout (schema 5): `varint stamps · (zigzag lamport, zigzag ms, peer)… · varint count ·
/// (property, varint stamp index, value)…`, strings and the value as a varint length and
/// bytes, properties in UTF-8 order, stamps in the order the cells first use them (one object
/// packs the same bytes on every peer). An object's cells mostly share one stamp (one save
/// on one peer), so its peer's 36-character identifier is written once, not once per cell:
/// a typical row is about half as large as in schemas 2–4, which wrote each cell's stamp in
/// full (``init(schema4:)`` still reads those, for the migration).
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
    /// UTF-8, a stamp index out of range, bytes left over, or properties not in strictly
    /// ascending order.
    init?(_ bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let stampCount = reader.readCount() else { return nil }
        var stamps: [Stamp] = []
        stamps.reserveCapacity(stampCount)
        for _ in 0..<stampCount {
            guard let lamport = reader.readSigned(), let ms = reader.readSigned(), let peer = reader.readString() else { return nil }
            stamps.append(Stamp(lamport: lamport, milliseconds: ms, peer: peer))
        }
        guard let count = reader.readCount() else { return nil }
        entries.reserveCapacity(count)
        for _ in 0..<count {
            guard let property = reader.readString(), let index = reader.readVarint(), index < UInt64(stamps.count),
                  let value = reader.readBytes() else { return nil }
            if let last = entries.last, UTF8Order.compare(last.property, property) >= 0 { return nil }
            entries.append(Entry(property: property, cell: Cell(stamp: stamps[Int(index)], value: value)))
        }
        guard reader.isAtEnd else { return nil }
    }

    /// Unpacks cells packed by schemas 2 to 4 (`varint count · (property, zigzag lamport,
    /// zigzag ms, peer, value)…`); `nil` as ``init(_:)``. Only the migration to schema 5 reads them.
    init?(schema4 bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let count = reader.readCount() else { return nil }
        entries.reserveCapacity(count)
        for _ in 0..<count {
            guard let property = reader.readString(), let lamport = reader.readSigned(), let ms = reader.readSigned() else { return nil }
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
        // The distinct stamps in order of first use; an object has one or a few.
        var stamps: [Stamp] = []
        var indexes: [Int] = []
        indexes.reserveCapacity(entries.count)
        var size = 2
        for entry in entries {
            let stamp = entry.cell.stamp
            if let found = stamps.firstIndex(where: { Self.same($0, stamp) }) {
                indexes.append(found)
            } else {
                indexes.append(stamps.count)
                stamps.append(stamp)
                size += stamp.peer.utf8.count + 21
            }
            size += entry.property.utf8.count + entry.cell.value.count + 12
        }
        var writer = ByteWriter()
        writer.bytes.reserveCapacity(size)
        writer.writeVarint(UInt64(stamps.count))
        for stamp in stamps {
            writer.writeSigned(stamp.lamport)
            writer.writeSigned(stamp.milliseconds)
            writer.writeString(stamp.peer)
        }
        writer.writeVarint(UInt64(entries.count))
        for (entry, index) in zip(entries, indexes) {
            writer.writeString(entry.property)
            writer.writeVarint(UInt64(index))
            writer.writeBytes(entry.cell.value)
        }
        return writer.bytes
    }

    /// Whether two stamps are the same, their peers compared by bytes.
    private static func same(_ a: Stamp, _ b: Stamp) -> Bool {
        a.lamport == b.lamport && a.milliseconds == b.milliseconds && UTF8Order.compare(a.peer, b.peer) == 0
    }

    /// The values by property.
    var values: [String: [UInt8]] {
        var values: [String: [UInt8]] = [:]
        values.reserveCapacity(entries.count)
        for entry in entries { values[entry.property] = entry.cell.value }
        return values
    }
}

/// The cells of one object — each property's winning value and its stamp — packed into one
/// blob of the state's `objects` row (schema 2): a merge reads and writes an object's row once,
/// not one row per property.
///
/// Layout: `varint count · (property, zigzag lamport, zigzag ms, peer, value)…`, strings and the
/// value as a varint length and bytes, properties in UTF-8 order (one object packs the same
/// bytes on every peer).
struct PackedCells {
    struct Cell: Equatable {
        var stamp: Stamp
        var value: [UInt8]
    }

    var cells: [String: Cell] = [:]

    init() {}

    /// Unpacks `bytes`; `nil` when they are not a packing (a damaged state).
    init?(_ bytes: [UInt8]) {
        var reader = ByteReader(bytes)
        guard let count = reader.readCount() else { return nil }
        cells.reserveCapacity(count)
        for _ in 0..<count {
            guard let property = reader.readString(), let lamport = reader.readSigned(),
                  let ms = reader.readSigned(), let peer = reader.readString(), let value = reader.readBytes() else { return nil }
            cells[property] = Cell(stamp: Stamp(lamport: lamport, milliseconds: ms, peer: peer), value: value)
        }
        guard reader.isAtEnd else { return nil }
    }

    /// Sets `property` to `value` if `stamp` is newer than the cell's (or it has none).
    /// Returns whether it did.
    mutating func merge(_ property: String, value: [UInt8], stamp: Stamp) -> Bool {
        if let current = cells[property], !(current.stamp < stamp) { return false }
        cells[property] = Cell(stamp: stamp, value: value)
        return true
    }

    /// The packed bytes.
    var bytes: [UInt8] {
        var writer = ByteWriter()
        writer.writeVarint(UInt64(cells.count))
        for property in cells.keys.sorted(by: UTF8Order.precedes) {
            let cell = cells[property]!
            writer.writeString(property)
            writer.writeSigned(cell.stamp.lamport)
            writer.writeSigned(cell.stamp.milliseconds)
            writer.writeString(cell.stamp.peer)
            writer.writeBytes(cell.value)
        }
        return writer.bytes
    }

    /// The values by property.
    var values: [String: [UInt8]] { cells.mapValues(\.value) }
}

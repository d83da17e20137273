import Foundation
import Strata

/// One property's value as it travels between peers and sits in the merge state: an
/// attribute's scalar, a to-one's target by global identifier, or an ordered to-many's order.
///
/// The encoding is canonical (one value, one byte string), so two values are equal exactly
/// when their bytes are; the merge compares bytes.
enum CellValue: Hashable, Sendable {
    case attribute(PropertyValue)
    /// A to-one's target (`nil` for none).
    case reference(String?)
    /// An ordered to-many's order, as global identifiers.
    case order([String])

    private enum Tag: UInt8 {
        case null = 0, integer, double, string, falseValue, trueValue, date, data, uuid, url, decimal, transformed, reference, order
    }

    /// The canonical bytes.
    var encoded: [UInt8] {
        var writer = ByteWriter()
        switch self {
        case .reference(nil), .attribute(.null):
            writer.write(Tag.null.rawValue)
        case .reference(let gid?):
            writer.write(Tag.reference.rawValue); writer.writeString(gid)
        case .order(let gids):
            writer.write(Tag.order.rawValue); writer.writeVarint(UInt64(gids.count))
            for gid in gids { writer.writeString(gid) }
        case .attribute(let value):
            Self.encode(value, into: &writer)
        }
        return writer.bytes
    }

    private static func encode(_ value: PropertyValue, into writer: inout ByteWriter) {
        switch value {
        case .null, .objectID, .objectIDs: writer.write(Tag.null.rawValue)   // relationships travel as references
        case .integer(let v): writer.write(Tag.integer.rawValue); writer.writeSigned(v)
        case .double(let v): writer.write(Tag.double.rawValue); writer.write(v.bitPattern)
        case .string(let v): writer.write(Tag.string.rawValue); writer.writeString(v)
        case .bool(let v): writer.write((v ? Tag.trueValue : Tag.falseValue).rawValue)
        case .date(let v): writer.write(Tag.date.rawValue); writer.write(v.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let v): writer.write(Tag.data.rawValue); writer.writeBytes(v)
        case .uuid(let v):
            writer.write(Tag.uuid.rawValue)
            withUnsafeBytes(of: v.uuid) { writer.bytes.append(contentsOf: $0) }
        case .url(let v): writer.write(Tag.url.rawValue); writer.writeString(v.absoluteString)
        case .decimal(let v): writer.write(Tag.decimal.rawValue); writer.writeString(v.description)
        case .transformed(let v): writer.write(Tag.transformed.rawValue); writer.writeBytes(v.data)
        }
    }

    /// Decodes `bytes` for a property of `entity`; `nil` when the bytes are not a value of
    /// that property's kind (damage, or a peer whose model differs).
    static func decode(_ bytes: [UInt8], attribute: AttributeDescription?) -> CellValue? {
        var reader = ByteReader(bytes)
        guard let raw = reader.read(UInt8.self), let tag = Tag(rawValue: raw) else { return nil }
        let value: CellValue?
        switch tag {
        case .null: value = attribute == nil ? .reference(nil) : .attribute(.null)
        case .reference: value = reader.readString().map { .reference($0) }
        case .order:
            guard let count = reader.readCount() else { return nil }
            var gids: [String] = []
            for _ in 0..<count { guard let gid = reader.readString() else { return nil }; gids.append(gid) }
            value = .order(gids)
        default:
            guard let attribute else { return nil }
            value = decodeAttribute(tag, &reader, attribute).map { .attribute($0) }
        }
        return reader.isAtEnd ? value : nil
    }

    private static func decodeAttribute(_ tag: Tag, _ reader: inout ByteReader, _ attribute: AttributeDescription) -> PropertyValue? {
        switch (tag, attribute.type) {
        case (.integer, .int16), (.integer, .int32), (.integer, .int64): return reader.readSigned().map { .integer($0) }
        case (.double, .double): return reader.read(UInt64.self).map { .double(Double(bitPattern: $0)) }
        case (.string, .string): return reader.readString().map { .string($0) }
        case (.falseValue, .bool): return .bool(false)
        case (.trueValue, .bool): return .bool(true)
        case (.date, .date): return reader.read(UInt64.self).map { .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: $0))) }
        case (.data, .data): return reader.readBytes().map { .data(Data($0)) }
        case (.uuid, .uuid):
            guard let b = reader.take(16) else { return nil }
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case (.url, .url): return reader.readString().flatMap { URL(string: $0) }.map { .url($0) }
        case (.decimal, .decimal): return reader.readString().flatMap { Decimal(string: $0, locale: nil) }.map { .decimal($0) }
        case (.transformed, .transformable):
            guard let bytes = reader.readBytes() else { return nil }
            let data = Data(bytes)
            guard let transformer = attribute.transformer, let decoded = try? transformer.decode(data) else { return nil }
            return .transformed(TransformedValue(data: data, value: decoded))
        default: return nil
        }
    }
}

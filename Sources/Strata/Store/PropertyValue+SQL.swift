import Foundation
import GRDB

extension PropertyValue {
    /// The SQLite representation (see ``AttributeType`` for the column of each type).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .double(let v): Self.needsBits(v) ? Self.bits(of: v).databaseValue : v.databaseValue
        case .string(let v): v.databaseValue
        case .bool(let v): (v ? 1 : 0 as Int64).databaseValue
        case .date(let v): v.timeIntervalSince1970.databaseValue
        case .data(let v): v.databaseValue
        case .uuid(let v): v.uuidString.databaseValue
        case .url(let v): v.absoluteString.databaseValue
        case .decimal(let v): v.description.databaseValue
        case .transformed(let v): v.data.databaseValue
        case .objectID(let id): id.isTemporary ? .null : id.key.databaseValue
        case .objectIDs: .null
        }
    }

    /// Whether a double cannot be stored as a SQLite REAL without loss: SQLite turns NaN into
    /// NULL, and a REAL column stores `-0.0` as the integer 0 (its sign is lost).
    @inline(__always)
    static func needsBits(_ v: Double) -> Bool { v.isNaN || (v == 0 && v.sign == .minus) }

    /// The 8-byte big-endian IEEE 754 form in which NaN and `-0.0` are stored.
    static func bits(of v: Double) -> Data { withUnsafeBytes(of: v.bitPattern.bigEndian) { Data($0) } }

    /// Reads a column value of an attribute of `type`. Transformable columns come back as
    /// `.data`; the caller decodes them with the attribute's transformer. A value that does not
    /// fit the type (another program wrote it) comes back in a form that ``fits(_:)`` rejects.
    init(databaseValue dbValue: DatabaseValue, type: AttributeType) {
        switch dbValue.storage {
        case .null: self = .null
        case .int64(let i): self.init(integer: i, type: type)
        case .double(let d): self.init(double: d, type: type)
        case .string(let s): self.init(text: s, type: type)
        case .blob(let data): self.init(blob: data, type: type)
        }
    }

    /// An INTEGER column read as `type`.
    init(integer i: Int64, type: AttributeType) {
        switch type {
        case .bool: self = .bool(i != 0)
        case .double: self = .double(Double(i))
        case .date: self = .date(Date(timeIntervalSince1970: Double(i)))
        case .decimal: self = .decimal(Decimal(i))
        case .string: self = .string(String(i))
        default: self = .integer(i)
        }
    }

    /// A REAL column read as `type`. A whole number reads as an integer; a fraction does not
    /// (it stays `.double`, which an integer attribute rejects: no silent truncation).
    init(double d: Double, type: AttributeType) {
        switch type {
        case .date: self = .date(Date(timeIntervalSince1970: d))
        case .int16, .int32, .int64: self = Int64(exactly: d).map(PropertyValue.integer) ?? .double(d)
        case .bool: self = .bool(d != 0)
        case .decimal: self = .double(d)
        default: self = .double(d)
        }
    }

    /// A TEXT column read as `type`.
    init(text s: String, type: AttributeType) {
        switch type {
        case .uuid: self = UUID(uuidString: s).map(PropertyValue.uuid) ?? .string(s)
        case .url: self = URL(string: s).map(PropertyValue.url) ?? .string(s)
        case .decimal: self = DecimalText.parse(s).map(PropertyValue.decimal) ?? .string(s)
        case .data, .transformable: self = .data(Data(s.utf8))
        default: self = .string(s)
        }
    }

    /// A BLOB column read as `type`: text when it is valid UTF-8, a double when it holds the
    /// 8 bytes of one (NaN and `-0.0` are stored so), a UUID from its 16 bytes.
    init(blob data: Data, type: AttributeType) {
        switch type {
        case .string:
            self = String(data: data, encoding: .utf8).map(PropertyValue.string) ?? .data(data)
        case .double where data.count == 8:
            self = .double(Double(bitPattern: data.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
        case .uuid where data.count == 16:
            let b = Array(data)
            self = .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        default:
            self = .data(data)
        }
    }

    /// Whether this value, as read from a column, is a value of an attribute of `type`
    /// (nil always is). A value that does not fit was written by another program: an integer
    /// out of the attribute's range, text in a number column, a UUID blob of the wrong size.
    func fits(_ type: AttributeType) -> Bool {
        // A switch on the value alone (a switch on a `(self, type)` pair copies the value,
        // a retain and a release per column read).
        switch self {
        case .null: true
        case .integer(let v):
            switch type {
            case .int16: Int16(exactly: v) != nil
            case .int32: Int32(exactly: v) != nil
            case .int64: true
            default: false
            }
        case .double: type == .double
        case .string: type == .string
        case .bool: type == .bool
        case .date: type == .date
        case .data: type == .data || type == .transformable
        case .uuid: type == .uuid
        case .url: type == .url
        case .decimal: type == .decimal
        case .transformed: type == .transformable
        case .objectID, .objectIDs: false
        }
    }

    /// Why this value, written to an attribute of `type`, could not be read back as the same
    /// value (nil when it can): an integer out of an `int16`/`int32` range, a NaN date, a NaN
    /// decimal or one of more than 38 significant digits.
    /// Called for every attribute of every saved object and batch-inserted row: it switches on
    /// the value alone (no tuple copy), and only a decimal costs more than a comparison.
    func storageProblem(for type: AttributeType) -> String? {
        switch self {
        case .integer(let v):
            if type == .int16, Int16(exactly: v) == nil { return "\(v) is out of the range of an int16" }
            if type == .int32, Int32(exactly: v) == nil { return "\(v) is out of the range of an int32" }
            return nil
        case .date(let v):
            return v.timeIntervalSince1970.isNaN ? "a date cannot be NaN" : nil
        case .decimal(let v):
            guard DecimalText.parse(v.description) != v else { return nil }
            return "a decimal cannot be NaN or have more than \(DecimalText.maximumDigits) significant digits (\(v))"
        default:
            return nil
        }
    }

    /// The error for a stored value that does not fit its attribute.
    static func misfit(_ value: PropertyValue, attribute: AttributeDescription, entity: EntityDescription, objectID: ObjectID?) -> StrataError {
        StrataError(.undecodableValue, "The stored value of \(entity.name).\(attribute.name) is not a \(attribute.type.rawValue): \(value)",
                    entity: entity.name, key: attribute.name, objectID: objectID)
    }
}

/// Quotes an SQL identifier (entity, attribute and table names are validated identifiers,
/// but quoting keeps SQL keywords such as `order` usable as names).
@inline(__always)
func quoted(_ identifier: String) -> String { "\"\(identifier)\"" }

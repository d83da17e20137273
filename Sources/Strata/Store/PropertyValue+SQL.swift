import Foundation
import GRDB

extension PropertyValue {
    /// The SQLite representation (see ``AttributeType`` for the column of each type).
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .double(let v): v.databaseValue
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

    /// Reads a column value of an attribute of `type`. Transformable columns come back as
    /// `.data`; the caller decodes them with the attribute's transformer.
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

    /// A REAL column read as `type`.
    init(double d: Double, type: AttributeType) {
        switch type {
        case .date: self = .date(Date(timeIntervalSince1970: d))
        case .int16, .int32, .int64: self = .integer(Int64(exactly: d.rounded(.towardZero)) ?? 0)
        case .bool: self = .bool(d != 0)
        case .decimal: self = .decimal(Decimal(d))
        default: self = .double(d)
        }
    }

    /// A TEXT column read as `type`.
    init(text s: String, type: AttributeType) {
        switch type {
        case .uuid: self = UUID(uuidString: s).map(PropertyValue.uuid) ?? .string(s)
        case .url: self = URL(string: s).map(PropertyValue.url) ?? .string(s)
        case .decimal: self = Decimal(string: s, locale: Locale(identifier: "en_US_POSIX")).map(PropertyValue.decimal) ?? .string(s)
        case .data, .transformable: self = .data(Data(s.utf8))
        default: self = .string(s)
        }
    }

    /// A BLOB column read as `type`.
    init(blob data: Data, type: AttributeType) {
        self = type == .string ? .string(String(decoding: data, as: UTF8.self)) : .data(data)
    }
}

/// Quotes an SQL identifier (entity, attribute and table names are validated identifiers,
/// but quoting keeps SQL keywords such as `order` usable as names).
@inline(__always)
func quoted(_ identifier: String) -> String { "\"\(identifier)\"" }

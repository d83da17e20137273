public import Foundation

/// The value of one property of a managed object, as Strata stores and compares it.
///
/// Attributes hold the scalar cases; a to-one relationship appears as `.objectID` (or
/// `.null`) and a to-many one as `.objectIDs` in change sets and dictionary results.
///
/// For example:
/// ```swift
/// let title: PropertyValue = .string("Hello")
/// note.setValue(title, forKey: "title")
/// ```
public enum PropertyValue: Sendable, Hashable, CustomStringConvertible {
    case null
    case integer(Int64)
    case double(Double)
    case string(String)
    case bool(Bool)
    case date(Date)
    case data(Data)
    case uuid(UUID)
    case url(URL)
    case decimal(Decimal)
    /// A transformable attribute's value: its encoded bytes and the decoded value.
    case transformed(TransformedValue)
    /// The target of a to-one relationship.
    case objectID(ObjectID)
    /// The targets of a to-many relationship (in order, for an ordered one).
    case objectIDs([ObjectID])

    /// Two values are equal when they would be stored identically: strings compare by their
    /// UTF-8 bytes (so NFC and NFD spellings differ, as in SQLite), doubles by their bits (so
    /// `-0.0` differs from `0.0`, and NaN equals the same NaN). Everything else compares as
    /// its Swift type does.
    public static func == (lhs: PropertyValue, rhs: PropertyValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
        case (.bool(let a), .bool(let b)): a == b
        case (.date(let a), .date(let b)): a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.data(let a), .data(let b)): a == b
        case (.uuid(let a), .uuid(let b)): a == b
        case (.url(let a), .url(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b
        case (.transformed(let a), .transformed(let b)): a == b
        case (.objectID(let a), .objectID(let b)): a == b
        case (.objectIDs(let a), .objectIDs(let b)): a == b
        default: false
        }
    }

    /// `true` for `.null`.
    @inlinable public var isNull: Bool { if case .null = self { return true } else { return false } }

    public var description: String {
        switch self {
        case .null: "nil"
        case .integer(let v): "\(v)"
        case .double(let v): "\(v)"
        case .string(let v): "\"\(v)\""
        case .bool(let v): "\(v)"
        // Foundation traps formatting a date that is not finite (the value of an error
        // refusing a NaN date): its seconds since 1970 are shown instead.
        case .date(let v): v.timeIntervalSince1970.isFinite ? "\(v)" : "date(\(v.timeIntervalSince1970))"
        case .data(let v): "<\(v.count) bytes>"
        case .uuid(let v): v.uuidString
        case .url(let v): v.absoluteString
        case .decimal(let v): "\(v)"
        case .transformed(let v): "<transformed \(v.data.count) bytes>"
        case .objectID(let v): v.description
        case .objectIDs(let v): "[\(v.map(\.description).joined(separator: ", "))]"
        }
    }
}

/// A transformable attribute's value: the bytes that are stored and, once decoded or set,
/// the Swift value they stand for. Two transformed values are equal when their bytes are.
public struct TransformedValue: Sendable, Hashable {
    /// The encoded form, as stored in SQLite.
    public let data: Data
    /// The decoded value, when known.
    public var value: (any Sendable)? { decoded?.value }
    /// The decoded value in a box: an existential held inline would make every
    /// ``PropertyValue`` address-only, so that each `switch` over one (on every save, fetch
    /// and batch insert) copied it through its value witnesses.
    private let decoded: DecodedValue?

    /// Creates a transformed value from its bytes and (optionally) its decoded value.
    public init(data: Data, value: (any Sendable)?) {
        self.data = data
        self.decoded = value.map(DecodedValue.init)
    }

    public static func == (lhs: TransformedValue, rhs: TransformedValue) -> Bool { lhs.data == rhs.data }
    public func hash(into hasher: inout Hasher) { hasher.combine(data) }
}

/// The decoded value of a ``TransformedValue``, boxed (immutable, so `Sendable` as it is).
private final class DecodedValue: Sendable {
    let value: any Sendable
    init(_ value: any Sendable) { self.value = value }
}

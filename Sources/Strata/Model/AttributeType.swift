/// The type of an attribute, which fixes its SQLite column type and how values compare.
///
/// | type | Swift | SQLite column |
/// |---|---|---|
/// | `.string` | `String` | TEXT (exact bytes; NFC and NFD stay distinct) |
/// | `.int16`, `.int32`, `.int64` | `Int16`, `Int32`, `Int64`, `Int` | INTEGER |
/// | `.double` | `Double` | REAL (NaN and `-0.0` as their 8 bytes) |
/// | `.bool` | `Bool` | INTEGER (0 or 1) |
/// | `.date` | `Date` | REAL (seconds since 1970) |
/// | `.data` | `Data` | BLOB |
/// | `.uuid` | `UUID` | TEXT (upper-case) |
/// | `.url` | `URL` | TEXT (absolute string) |
/// | `.decimal` | `Decimal` | TEXT (exact, up to 38 significant digits; compared numerically) |
/// | `.transformable` | any `Codable` type via a transformer | BLOB |
///
/// For example:
/// ```swift
/// AttributeDescription("rating", type: .int16, defaultValue: .integer(3))
/// ```
public enum AttributeType: String, Sendable, Hashable, CaseIterable {
    case string, int16, int32, int64, double, bool, date, data, uuid, url, decimal, transformable

    /// The SQLite column affinity used for this type.
    var sqlType: String {
        switch self {
        case .string, .uuid, .url, .decimal: "TEXT"
        case .int16, .int32, .int64, .bool: "INTEGER"
        case .double, .date: "REAL"
        case .data, .transformable: "BLOB"
        }
    }

    /// Whether values of this type order numerically (integers, doubles, dates, decimals, bools).
    var isNumeric: Bool {
        switch self {
        case .int16, .int32, .int64, .double, .date, .decimal, .bool: true
        default: false
        }
    }
}

/// What happens to the destination of a relationship when its source is deleted.
///
/// For example:
/// ```swift
/// @Relationship("notes", inverse: "folder", deleteRule: .cascade) var notes: Set<Note>
/// ```
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
    /// Remove the deleted object from the destinations' inverse relationship (the default).
    case nullify
    /// Delete the destinations too.
    case cascade
    /// Refuse to delete while the relationship has any destination (a typed error at save).
    case deny
    /// Do nothing: the destinations keep pointing at the deleted object. Rarely right.
    case noAction
}

/// A collection operator over a to-many key path's numbers: `items.@sum.price`.
///
/// Nil members are skipped. Over no members (or only nils) `@sum` is 0 and `@avg`, `@min`,
/// `@max` are nil, which compares like nil everywhere (only `== nil` is true). SQL computes
/// them with `TOTAL`, `AVG`, `MIN`, `MAX`; memory with the same rules (see docs/predicates.md).
enum CollectionOperator: String, Sendable, Hashable, CaseIterable {
    case sum = "@sum", avg = "@avg", min = "@min", max = "@max"

    /// The SQLite aggregate function computing it.
    var sqlFunction: String {
        switch self {
        case .sum: "TOTAL"
        case .avg: "AVG"
        case .min: "MIN"
        case .max: "MAX"
        }
    }

    /// The operator applied to `values` (nils already removed).
    func apply(_ values: [Double]) -> PropertyValue {
        switch self {
        case .sum: return .double(values.reduce(0, +))
        case .avg: return values.isEmpty ? .null : .double(values.reduce(0, +) / Double(values.count))
        case .min: return values.min().map(PropertyValue.double) ?? .null
        case .max: return values.max().map(PropertyValue.double) ?? .null
        }
    }
}

import Foundation

/// A ``SortKey`` resolved against an entity: an SQL `ORDER BY` term and an in-memory
/// comparator that order identically.
struct CompiledSortKey {
    let keyPath: ResolvedKeyPath
    let ascending: Bool
    let comparison: SortKey.Comparison

    /// Whether the key path ends at a string-like attribute (where `comparison` applies).
    private var isText: Bool {
        switch keyPath.attributeType {
        case .string?, .uuid?, .url?: true
        default: false
        }
    }

    /// The `ORDER BY` term over table alias `alias`, e.g. `t0."title" ASC`.
    func orderingTerm(alias: String, writer: inout PredicateSQLWriter) -> String {
        var expression = keyPath.sql(from: alias, writer: &writer)
        if isText {
            switch comparison {
            case .default: break
            case .caseInsensitive:
                expression = "\(PredicateFunctions.foldFunctionName)(\(expression), \(ObjectPredicate.StringOptions.caseInsensitive.rawValue))"
            case .localized:
                expression += " COLLATE \(PredicateFunctions.localizedCollationName)"
            }
        }
        return expression + (ascending ? " ASC" : " DESC")
    }

    /// The `ORDER BY` clause body for `keys`, then `alias._id` as the tie-break.
    static func orderBy(_ keys: [CompiledSortKey], alias: String, model: ObjectModel) -> String {
        var writer = PredicateSQLWriter(model: model, rootAlias: alias, arguments: [])
        return (keys.map { $0.orderingTerm(alias: alias, writer: &writer) } + ["\(alias)._id"]).joined(separator: ", ")
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    func compare(_ a: any PredicateSubject, _ b: any PredicateSubject) -> Int {
        let order = compareValues(keyPath.value(of: a), keyPath.value(of: b))
        return ascending ? order : -order
    }

    /// Whether `a` sorts before `b` under `keys`, objects' IDs breaking ties (as `_id` in SQL).
    static func areInIncreasingOrder(_ keys: [CompiledSortKey], _ a: any PredicateSubject, _ b: any PredicateSubject) -> Bool {
        for key in keys {
            let order = key.compare(a, b)
            if order != 0 { return order < 0 }
        }
        return FetchEvaluator.compareIDs(a.predicateObjectID, b.predicateObjectID) < 0
    }

    /// Ascending comparison of two values of this key path: nil first, then as SQLite orders.
    func compareValues(_ x: PropertyValue, _ y: PropertyValue) -> Int {
        switch (x.isNull, y.isNull) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        default: break
        }
        if let p = x.numericValue, let q = y.numericValue { return p < q ? -1 : (p == q ? 0 : 1) }
        if let s = x.comparableText, let t = y.comparableText {
            switch comparison {
            case .default:
                return Self.compareBytes(s, t)
            case .caseInsensitive:
                return Self.compareBytes(PredicateFunctions.fold(s, .caseInsensitive), PredicateFunctions.fold(t, .caseInsensitive))
            case .localized:
                switch s.localizedStandardCompare(t) {
                case .orderedAscending: return -1
                case .orderedSame: return 0
                case .orderedDescending: return 1
                }
            }
        }
        switch (x, y) {
        case (.data(let d), .data(let e)): return d == e ? 0 : (d.lexicographicallyPrecedes(e) ? -1 : 1)
        case (.objectID(let i), .objectID(let j)): return i.key < j.key ? -1 : (i.key == j.key ? 0 : 1)
        default: return 0
        }
    }

    private static func compareBytes(_ s: String, _ t: String) -> Int {
        if s.utf8.elementsEqual(t.utf8) { return 0 }
        return s.utf8.lexicographicallyPrecedes(t.utf8) ? -1 : 1
    }
}

import Foundation
import GRDB

/// A comparison leaf with its constants converted once, at compile time, to the form both
/// SQL and memory compare: numbers as `Double`, strings (folded by `[c]`/`[d]`) by their
/// UTF-8 bytes, data by bytes, objects by ``ObjectID``.
struct ComparisonTest {
    /// How the key path's values compare.
    enum Domain: Equatable {
        case numeric, text, data
        /// Object IDs of the entity with this index.
        case object(Int)
    }

    /// A non-nil operand in comparable form.
    enum Scalar {
        case number(Double)
        case text(String)
        case data(Data)
        case object(ObjectID)
    }

    let domain: Domain
    let op: PredicateOperator
    let options: ObjectPredicate.StringOptions
    /// `==`/`!=`: one constant, possibly nil. Ordering and string operators: one non-nil.
    /// BETWEEN: two non-nil. IN: the non-nil members.
    let constants: [Scalar?]
    /// For MATCHES: the compiled expression.
    let regex: NSRegularExpression?

    // MARK: Memory

    /// Whether `value` (read from the key path) passes. Two-valued: a nil operand is false
    /// everywhere except `==`/`!=`, where nil is a value.
    func evaluate(_ value: PropertyValue) -> Bool {
        switch op {
        case .equalTo: return Self.equal(scalar(value), constants[0])
        case .notEqualTo: return !Self.equal(scalar(value), constants[0])
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let x = scalar(value), let c = constants[0], let order = Self.order(x, c) else { return false }
            switch op {
            case .lessThan: return order < 0
            case .lessThanOrEqualTo: return order <= 0
            case .greaterThan: return order > 0
            default: return order >= 0
            }
        case .between:
            guard let x = scalar(value), let lo = constants[0], let hi = constants[1],
                  let a = Self.order(x, lo), let b = Self.order(x, hi) else { return false }
            return a >= 0 && b <= 0
        case .in:
            guard let x = scalar(value) else { return false }
            return constants.contains { Self.equal(x, $0) }
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard let text = value.comparableText, case .text(let pattern)? = constants[0],
                  let operation = PredicateFunctions.MatchOperation(op) else { return false }
            return PredicateFunctions.match(text, pattern, operation, options, regex: regex)
        }
    }

    /// The operand in comparable form (strings folded for `[c]`/`[d]`), nil for nil or a
    /// value of another domain.
    private func scalar(_ value: PropertyValue) -> Scalar? {
        Self.scalar(value, domain, options)
    }

    /// `value` in comparable form for `domain` (strings folded by `options`), nil for nil or
    /// a value of another domain.
    static func scalar(_ value: PropertyValue, _ domain: Domain, _ options: ObjectPredicate.StringOptions) -> Scalar? {
        switch domain {
        case .numeric: return value.numericValue.map(Scalar.number)
        case .text: return value.comparableText.map { .text(PredicateFunctions.fold($0, options)) }
        case .data: if case .data(let d) = value { return .data(d) } else { return nil }
        case .object: if case .objectID(let id) = value { return .object(id) } else { return nil }
        }
    }

    static func equal(_ a: Scalar?, _ b: Scalar?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (let a?, let b?): return order(a, b) == 0
        default: return false
        }
    }

    /// -1, 0 or 1; nil when the two cannot be ordered.
    static func order(_ a: Scalar, _ b: Scalar) -> Int? {
        switch (a, b) {
        case (.number(let x), .number(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.text(let x), .text(let y)):
            if x.utf8.elementsEqual(y.utf8) { return 0 }
            return x.utf8.lexicographicallyPrecedes(y.utf8) ? -1 : 1
        case (.data(let x), .data(let y)):
            if x == y { return 0 }
            return x.lexicographicallyPrecedes(y) ? -1 : 1
        case (.object(let x), .object(let y)): return x == y ? 0 : 1
        default: return nil
        }
    }

    // MARK: SQL

    /// The boolean SQL (never NULL) testing the SQL expression `lhs`.
    func sql(_ lhs: String, writer: inout PredicateSQLWriter) -> String {
        if op.isStringOperator {
            guard case .text(let pattern)? = constants[0], let operation = PredicateFunctions.MatchOperation(op) else { return "0" }
            let p = writer.bind(pattern.databaseValue)
            return "\(PredicateFunctions.matchFunctionName)(\(lhs), \(p), \(operation.rawValue), \(options.rawValue))"
        }
        var operand = lhs
        if domain == .text && !options.isEmpty {
            operand = "\(PredicateFunctions.foldFunctionName)(\(lhs), \(options.rawValue))"
        }
        switch op {
        case .equalTo, .notEqualTo:
            let isEqual = op == .equalTo
            guard let constant = constants[0] else { return "\(operand) \(isEqual ? "IS NULL" : "IS NOT NULL")" }
            guard let value = Self.databaseValue(constant) else { return isEqual ? "0" : "1" }
            return "\(operand) \(isEqual ? "IS" : "IS NOT") \(writer.bind(value))"
        case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo:
            guard let value = constants[0].flatMap(Self.databaseValue) else { return "0" }
            return "COALESCE(\(operand) \(op.rawValue) \(writer.bind(value)), 0)"
        case .between:
            guard let lo = constants[0].flatMap(Self.databaseValue), let hi = constants[1].flatMap(Self.databaseValue) else { return "0" }
            let l = writer.bind(lo), h = writer.bind(hi)
            return "COALESCE(\(operand) BETWEEN \(l) AND \(h), 0)"
        case .in:
            let values = constants.compactMap { $0.flatMap(Self.databaseValue) }
            guard !values.isEmpty else { return "0" }
            let placeholders = values.map { writer.bind($0) }.joined(separator: ", ")
            return "COALESCE(\(operand) IN (\(placeholders)), 0)"
        default:
            return "0"
        }
    }

    /// The bound value; nil for a temporary object ID (which no row has).
    private static func databaseValue(_ scalar: Scalar) -> DatabaseValue? {
        switch scalar {
        case .number(let x): x.databaseValue
        case .text(let s): s.databaseValue
        case .data(let d): d.databaseValue
        case .object(let id): id.isTemporary ? nil : id.key.databaseValue
        }
    }
}

extension PropertyValue {
    /// The value as a number (integers, doubles, bools as 0/1, dates as seconds since 1970,
    /// decimals), or nil.
    var numericValue: Double? {
        switch self {
        case .integer(let v): Double(v)
        case .double(let v): v
        case .bool(let v): v ? 1 : 0
        case .date(let v): v.timeIntervalSince1970
        case .decimal(let v): Double(v.description)
        default: nil
        }
    }

    /// The value as stored text (strings; UUIDs upper-case; URLs absolute), or nil.
    var comparableText: String? {
        switch self {
        case .string(let s): s
        case .uuid(let u): u.uuidString
        case .url(let u): u.absoluteString
        default: nil
        }
    }
}

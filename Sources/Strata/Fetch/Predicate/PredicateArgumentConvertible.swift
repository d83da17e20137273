public import Foundation

/// A value that can stand on the right of a predicate comparison: the argument of `%@` in a
/// format string, or the operand of a builder operator such as `==`.
///
/// Strings, integers, floating-point numbers, `Bool`, `Date`, `Data`, `UUID`, `URL`,
/// `Decimal`, ``ObjectID`` and ``PropertyValue`` conform; managed objects conform by
/// returning their ``ObjectID`` (so `folder == %@` compares object identities). Conform
/// your own types to use them as arguments.
/// ```swift
/// struct Slug: PredicateArgumentConvertible {
///     var text: String
///     var predicateArgument: PropertyValue { .string(text) }
/// }
/// let p = try ObjectPredicate("slug == %@", Slug(text: "hello"))
/// ```
public protocol PredicateArgumentConvertible {
    /// The value compared in SQL and in memory.
    var predicateArgument: PropertyValue { get }
}

extension PropertyValue: PredicateArgumentConvertible {
    /// The value itself.
    public var predicateArgument: PropertyValue { self }
}

extension ObjectID: PredicateArgumentConvertible {
    /// `.objectID(self)`: objects compare by identity.
    public var predicateArgument: PropertyValue { .objectID(self) }
}

extension String: PredicateArgumentConvertible {
    /// `.string(self)`.
    public var predicateArgument: PropertyValue { .string(self) }
}

extension Substring: PredicateArgumentConvertible {
    /// `.string(String(self))`.
    public var predicateArgument: PropertyValue { .string(String(self)) }
}

extension Bool: PredicateArgumentConvertible {
    /// `.bool(self)`, which compares as 0 or 1.
    public var predicateArgument: PropertyValue { .bool(self) }
}

extension Double: PredicateArgumentConvertible {
    /// `.double(self)`.
    public var predicateArgument: PropertyValue { .double(self) }
}

extension Float: PredicateArgumentConvertible {
    /// `.double(Double(self))`.
    public var predicateArgument: PropertyValue { .double(Double(self)) }
}

extension Date: PredicateArgumentConvertible {
    /// `.date(self)`, which compares as seconds since 1970.
    public var predicateArgument: PropertyValue { .date(self) }
}

extension Data: PredicateArgumentConvertible {
    /// `.data(self)`.
    public var predicateArgument: PropertyValue { .data(self) }
}

extension UUID: PredicateArgumentConvertible {
    /// `.uuid(self)`, which compares as its upper-case string.
    public var predicateArgument: PropertyValue { .uuid(self) }
}

extension URL: PredicateArgumentConvertible {
    /// `.url(self)`, which compares as its absolute string.
    public var predicateArgument: PropertyValue { .url(self) }
}

extension Decimal: PredicateArgumentConvertible {
    /// `.decimal(self)`, which compares numerically.
    public var predicateArgument: PropertyValue { .decimal(self) }
}

/// Integers become `.integer`; values beyond `Int64` become `.double`.
extension PredicateArgumentConvertible where Self: BinaryInteger {
    /// `.integer(Int64(self))`.
    public var predicateArgument: PropertyValue {
        if let exact = Int64(exactly: self) { return .integer(exact) }
        return .double(Double(self))
    }
}

extension Int: PredicateArgumentConvertible {}
extension Int8: PredicateArgumentConvertible {}
extension Int16: PredicateArgumentConvertible {}
extension Int32: PredicateArgumentConvertible {}
extension Int64: PredicateArgumentConvertible {}
extension UInt: PredicateArgumentConvertible {}
extension UInt8: PredicateArgumentConvertible {}
extension UInt16: PredicateArgumentConvertible {}
extension UInt32: PredicateArgumentConvertible {}
extension UInt64: PredicateArgumentConvertible {}

/// Turns format arguments (`Any?`) into predicate values.
enum PredicateArgument {
    /// The value of a `%@` argument: one value, or a list for an array or set; nil if the
    /// argument's type is not supported.
    static func operand(_ argument: Any?) -> PredicateOperand? {
        guard let value = unwrapped(argument) else { return .single(.null) }
        if let convertible = value as? any PredicateArgumentConvertible {
            return .single(convertible.predicateArgument)
        }
        guard let sequence = value as? any Sequence else { return nil }
        var list: [PropertyValue] = []
        for element in elements(of: sequence) {
            guard case .single(let v)? = operand(element) else { return nil }
            list.append(v)
        }
        return .list(list)
    }

    /// The value of a `%d`/`%i`/`%ld` argument, if it is an integer (or a Bool).
    static func integer(_ argument: Any?) -> Int64? {
        switch unwrapped(argument) {
        case let v as any BinaryInteger: Int64(exactly: v)
        case let v as Bool: v ? 1 : 0
        default: nil
        }
    }

    /// The value of a `%f` argument, if it is a number.
    static func double(_ argument: Any?) -> Double? {
        switch unwrapped(argument) {
        case let v as Double: v
        case let v as Float: Double(v)
        case let v as any BinaryInteger: Double(v)
        case let v as Decimal: NSDecimalNumber(decimal: v).doubleValue
        default: nil
        }
    }

    /// The key path of a `%K` argument, if it is a string.
    static func keyPath(_ argument: Any?) -> String? {
        switch unwrapped(argument) {
        case let v as String: v
        case let v as Substring: String(v)
        default: nil
        }
    }

    /// Looks through any number of `Optional` layers (an `Int?` passed as `Any?`).
    private static func unwrapped(_ value: Any?) -> Any? {
        guard let value else { return nil }
        if let optional = value as? any OptionalBox { return unwrapped(optional.boxedValue) }
        return value
    }

    private static func elements(of sequence: some Sequence) -> [Any?] { sequence.map { $0 } }
}

/// Lets `unwrapped` see inside an `Optional` stored in an `Any`.
private protocol OptionalBox { var boxedValue: Any? { get } }
extension Optional: OptionalBox {
    fileprivate var boxedValue: Any? { self.map { $0 } }
}

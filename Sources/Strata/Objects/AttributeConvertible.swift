public import Foundation

/// A Swift type that can be stored in an attribute without a transformer.
///
/// `String`, the integer types, `Double`, `Float`, `Bool`, `Date`, `Data`, `UUID`, `URL`,
/// `Decimal` and optionals of them conform.
///
/// For example:
/// ```swift
/// @Attribute("rating") var rating: Int16 = 0
/// @Attribute("subtitle") var subtitle: String? = nil
/// ```
public protocol AttributeConvertible {
    /// The attribute type this Swift type is stored as.
    static var attributeType: AttributeType { get }
    /// Creates a value from its stored form, or nil if it does not fit.
    init?(propertyValue: PropertyValue)
    /// The stored form.
    var propertyValue: PropertyValue { get }
}

extension String: AttributeConvertible {
    public static var attributeType: AttributeType { .string }
    public init?(propertyValue: PropertyValue) { guard case .string(let v) = propertyValue else { return nil }; self = v }
    public var propertyValue: PropertyValue { .string(self) }
}

extension Int: AttributeConvertible {
    public static var attributeType: AttributeType { .int64 }
    public init?(propertyValue: PropertyValue) { guard case .integer(let v) = propertyValue else { return nil }; self = Int(truncatingIfNeeded: v) }
    public var propertyValue: PropertyValue { .integer(Int64(self)) }
}

extension Int64: AttributeConvertible {
    public static var attributeType: AttributeType { .int64 }
    public init?(propertyValue: PropertyValue) { guard case .integer(let v) = propertyValue else { return nil }; self = v }
    public var propertyValue: PropertyValue { .integer(self) }
}

extension Int32: AttributeConvertible {
    public static var attributeType: AttributeType { .int32 }
    public init?(propertyValue: PropertyValue) { guard case .integer(let v) = propertyValue else { return nil }; self = Int32(truncatingIfNeeded: v) }
    public var propertyValue: PropertyValue { .integer(Int64(self)) }
}

extension Int16: AttributeConvertible {
    public static var attributeType: AttributeType { .int16 }
    public init?(propertyValue: PropertyValue) { guard case .integer(let v) = propertyValue else { return nil }; self = Int16(truncatingIfNeeded: v) }
    public var propertyValue: PropertyValue { .integer(Int64(self)) }
}

extension Double: AttributeConvertible {
    public static var attributeType: AttributeType { .double }
    public init?(propertyValue: PropertyValue) {
        switch propertyValue {
        case .double(let v): self = v
        case .integer(let v): self = Double(v)
        default: return nil
        }
    }
    public var propertyValue: PropertyValue { .double(self) }
}

extension Float: AttributeConvertible {
    public static var attributeType: AttributeType { .double }
    public init?(propertyValue: PropertyValue) { guard let d = Double(propertyValue: propertyValue) else { return nil }; self = Float(d) }
    public var propertyValue: PropertyValue { .double(Double(self)) }
}

extension Bool: AttributeConvertible {
    public static var attributeType: AttributeType { .bool }
    public init?(propertyValue: PropertyValue) {
        switch propertyValue {
        case .bool(let v): self = v
        case .integer(let v): self = v != 0
        default: return nil
        }
    }
    public var propertyValue: PropertyValue { .bool(self) }
}

extension Date: AttributeConvertible {
    public static var attributeType: AttributeType { .date }
    public init?(propertyValue: PropertyValue) { guard case .date(let v) = propertyValue else { return nil }; self = v }
    public var propertyValue: PropertyValue { .date(self) }
}

extension Data: AttributeConvertible {
    public static var attributeType: AttributeType { .data }
    public init?(propertyValue: PropertyValue) { guard case .data(let v) = propertyValue else { return nil }; self = v }
    public var propertyValue: PropertyValue { .data(self) }
}

extension UUID: AttributeConvertible {
    public static var attributeType: AttributeType { .uuid }
    public init?(propertyValue: PropertyValue) { guard case .uuid(let v) = propertyValue else { return nil }; self = v }
    public var propertyValue: PropertyValue { .uuid(self) }
}

extension URL: AttributeConvertible {
    public static var attributeType: AttributeType { .url }
    public init?(propertyValue: PropertyValue) { guard case .url(let v) = propertyValue else { return nil }; self = v }
    public var propertyValue: PropertyValue { .url(self) }
}

extension Decimal: AttributeConvertible {
    public static var attributeType: AttributeType { .decimal }
    public init?(propertyValue: PropertyValue) { guard case .decimal(let v) = propertyValue else { return nil }; self = v }
    public var propertyValue: PropertyValue { .decimal(self) }
}

extension Optional: AttributeConvertible where Wrapped: AttributeConvertible {
    public static var attributeType: AttributeType { Wrapped.attributeType }
    public init?(propertyValue: PropertyValue) {
        if propertyValue.isNull { self = .none; return }
        guard let v = Wrapped(propertyValue: propertyValue) else { return nil }
        self = .some(v)
    }
    public var propertyValue: PropertyValue { self?.propertyValue ?? .null }
}

/// Marks optional types, so that a wrapper can tell `String?` from `String`.
protocol OptionalMarker { static var wrappedType: Any.Type { get }; var isNone: Bool { get } }
extension Optional: OptionalMarker {
    static var wrappedType: Any.Type { Wrapped.self }
    var isNone: Bool { self == nil }
}

import Foundation

/// How an `@Attribute` wrapper turns its Swift value into a `PropertyValue` and back.
/// Chosen once per wrapper by its initialiser, so the hot path does no type search.
@usableFromInline
protocol AttributeConversion: SendableMetatype {
    static var attributeType: AttributeType { get }
    static var isOptional: Bool { get }
    /// The Swift value for `stored`, or nil if it does not fit (the wrapper then falls back to its default).
    static func decode<V>(_ stored: PropertyValue, as: V.Type) -> V?
    /// The stored form of `value`.
    static func encode<V>(_ value: V, transformer: (any DataTransformer)?) throws(StrataError) -> PropertyValue
    /// A transformer for this type registered under `name` (transformable attributes only).
    static func makeTransformer(_ name: TransformerName) -> (any DataTransformer)?
}

/// Plain attributes: the Swift type is `AttributeConvertible`.
@usableFromInline
enum ScalarConversion<T: AttributeConvertible>: AttributeConversion {
    @usableFromInline static var attributeType: AttributeType { T.attributeType }
    @usableFromInline static var isOptional: Bool { T.self is any OptionalMarker.Type }
    @usableFromInline static func decode<V>(_ stored: PropertyValue, as: V.Type) -> V? { T(propertyValue: stored) as? V }
    @usableFromInline static func encode<V>(_ value: V, transformer: (any DataTransformer)?) throws(StrataError) -> PropertyValue {
        (value as? T)?.propertyValue ?? .null
    }
    @usableFromInline static func makeTransformer(_ name: TransformerName) -> (any DataTransformer)? { nil }
}

/// Transformable attributes: any `Codable & Sendable` type, stored as bytes.
@usableFromInline
enum CodableConversion<T: Codable & Sendable>: AttributeConversion {
    @usableFromInline static var attributeType: AttributeType { .transformable }
    @usableFromInline static var isOptional: Bool { T.self is any OptionalMarker.Type }
    @usableFromInline static func decode<V>(_ stored: PropertyValue, as: V.Type) -> V? {
        switch stored {
        case .transformed(let t): return t.value as? V
        case .null: return isOptional ? (Optional<T>.none as Any) as? V : nil
        default: return nil
        }
    }
    @usableFromInline static func encode<V>(_ value: V, transformer: (any DataTransformer)?) throws(StrataError) -> PropertyValue {
        guard let typed = value as? T else { return .null }
        if let optional = typed as? any OptionalMarker, optional.isNone { return .null }
        guard let transformer else {
            throw StrataError(.unencodableValue, "No transformer for \(T.self).")
        }
        do {
            return .transformed(TransformedValue(data: try transformer.encode(typed), value: typed))
        } catch {
            throw StrataError(.unencodableValue, "A \(T.self) value could not be encoded: \(error)", underlying: error)
        }
    }
    @usableFromInline static func makeTransformer(_ name: TransformerName) -> (any DataTransformer)? { CodableTransformerFactory<T>.make(name) }
}

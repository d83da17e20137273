public import Foundation

/// Turns an attribute's value into `Data` for storage and back.
///
/// Register a transformer under a ``TransformerName`` with ``TransformerRegistry`` to use it
/// from dynamic models; typed models using `.json` or `.propertyList` need no registration.
///
/// For example:
/// ```swift
/// struct UppercaseTransformer: DataTransformer {
///     func encode(_ value: Any) throws -> Data {
///         guard let text = value as? String else { throw TransformerError.wrongType(expected: "String", got: "\(type(of: value))") }
///         return Data(text.uppercased().utf8)
///     }
///     func decode(_ data: Data) throws -> any Sendable { String(decoding: data, as: UTF8.self) }
/// }
/// TransformerRegistry.shared.register(UppercaseTransformer(), as: "uppercase")
/// ```
public protocol DataTransformer: Sendable {
    /// Encodes `value` as bytes. Throw if it is not a value this transformer handles.
    func encode(_ value: Any) throws -> Data
    /// Decodes bytes written by ``encode(_:)``. Throw if they do not decode.
    func decode(_ data: Data) throws -> any Sendable
}

/// The name under which a transformer is registered.
///
/// For example:
/// ```swift
/// @Attribute("metadata", transformer: .json) var metadata: [String: String] = [:]
/// ```
public struct TransformerName: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }

    /// JSON with sorted keys (so equal values store equal bytes), for any `Codable` type.
    public static let json: TransformerName = "json"
    /// Binary property list, for any `Codable` type.
    public static let propertyList: TransformerName = "propertyList"
}

/// JSON for a `Codable` type, with sorted keys so that equal values encode to equal bytes.
public struct JSONTransformer<Value: Codable & Sendable>: DataTransformer {
    /// Creates a JSON transformer for `Value`.
    public init() {}

    public func encode(_ value: Any) throws -> Data {
        guard let typed = value as? Value else { throw TransformerError.wrongType(expected: "\(Value.self)", got: "\(type(of: value))") }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(typed)
    }

    public func decode(_ data: Data) throws -> any Sendable {
        try JSONDecoder().decode(Value.self, from: data)
    }
}

/// A binary property list for a `Codable` type.
public struct PropertyListTransformer<Value: Codable & Sendable>: DataTransformer {
    /// Creates a property-list transformer for `Value`.
    public init() {}

    public func encode(_ value: Any) throws -> Data {
        guard let typed = value as? Value else { throw TransformerError.wrongType(expected: "\(Value.self)", got: "\(type(of: value))") }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(typed)
    }

    public func decode(_ data: Data) throws -> any Sendable {
        try PropertyListDecoder().decode(Value.self, from: data)
    }
}

/// Why a transformer refused a value.
public enum TransformerError: Error, Sendable, Equatable {
    /// The value is not of the transformer's type.
    case wrongType(expected: String, got: String)
}

/// Makes typed transformers for the built-in names, given the Swift type (used by `@Attribute`).
enum CodableTransformerFactory<Value: Codable & Sendable> {
    static func make(_ name: TransformerName) -> (any DataTransformer)? {
        switch name {
        case .json: JSONTransformer<Value>()
        case .propertyList: PropertyListTransformer<Value>()
        default: TransformerRegistry.shared.transformer(named: name)
        }
    }
}

/// Transformers by name, for dynamic models and custom encodings.
///
/// For example:
/// ```swift
/// TransformerRegistry.shared.register(JSONTransformer<[String]>(), as: "tags")
/// let attribute = AttributeDescription("tags", type: .transformable, transformerName: "tags")
/// ```
public final class TransformerRegistry: Sendable {
    /// The process-wide registry.
    public static let shared = TransformerRegistry()

    private let table = Locked<[TransformerName: any DataTransformer]>([:])

    /// Registers `transformer` under `name`, replacing any earlier one.
    public func register(_ transformer: any DataTransformer, as name: TransformerName) {
        table.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`, if any.
    public func transformer(named name: TransformerName) -> (any DataTransformer)? {
        table.withLock { $0[name] }
    }
}

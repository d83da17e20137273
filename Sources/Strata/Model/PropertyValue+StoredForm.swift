import Foundation

extension PropertyValue {
    /// The value as SQLite gives it back after storing it: dates pass through seconds since
    /// 1970, URLs through their text, decimals through theirs. Everything else is unchanged.
    ///
    /// For example:
    /// ```swift
    /// let stored = PropertyValue.date(Date()).storedForm   // the date a fetch would read
    /// ```
    var storedForm: PropertyValue {
        switch self {
        case .date(let date): .date(Date(timeIntervalSince1970: date.timeIntervalSince1970))
        case .url(let url): URL(string: url.absoluteString).map(PropertyValue.url) ?? .string(url.absoluteString)
        case .decimal(let decimal): DecimalText.parse(decimal.description).map(PropertyValue.decimal) ?? .string(decimal.description)
        default: self
        }
    }

    /// The value of an attribute with `transformer` as a read of its stored bytes gives it:
    /// the bytes decoded again (a transformer may normalise). `nil` when they do not decode
    /// (a read reports that as an error). Values of other attributes: ``storedForm``.
    func storedForm(transformer: (any DataTransformer)?) -> PropertyValue? {
        guard let transformer else { return storedForm }
        let bytes: Data
        switch self {
        case .transformed(let value): bytes = value.data
        case .data(let data): bytes = data
        default: return self
        }
        guard let decoded = try? transformer.decode(bytes) else { return nil }
        return .transformed(TransformedValue(data: bytes, value: decoded))
    }

    /// The attribute values `values` of `entity` in their stored forms (the same array, no
    /// copy, when none changes); `nil` when a transformable value does not decode.
    static func storedForms(_ values: [PropertyValue], of entity: EntityDescription) -> [PropertyValue]? {
        let transformers = entity.attributeTransformers
        guard let first = values.indices.first(where: { values[$0].changesWhenStored || transformers[$0] != nil }) else { return values }
        var result = values
        for i in first..<result.count where result[i].changesWhenStored || transformers[i] != nil {
            guard let stored = result[i].storedForm(transformer: transformers[i]) else { return nil }
            result[i] = stored
        }
        return result
    }

    /// Whether ``storedForm`` may differ from the value.
    private var changesWhenStored: Bool {
        switch self {
        case .date, .url, .decimal: true
        default: false
        }
    }
}

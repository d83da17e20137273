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

    /// `values` in their stored forms; the same array (no copy) when none changes.
    static func storedForms(_ values: [PropertyValue]) -> [PropertyValue] {
        guard let first = values.firstIndex(where: \.changesWhenStored) else { return values }
        var result = values
        for i in first..<result.count where result[i].changesWhenStored { result[i] = result[i].storedForm }
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

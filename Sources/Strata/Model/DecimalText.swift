import Foundation

/// Decimal text as Strata stores it, read strictly: a plain decimal number (optionally with
/// an exponent) of at most 38 significant digits, which `Decimal` holds exactly. Anything
/// else (more digits, trailing garbage, NaN) is not a decimal, rather than a rounded one.
enum DecimalText {
    /// The most significant digits a stored decimal may have.
    static let maximumDigits = 38

    static func parse(_ text: String) -> Decimal? {
        var digits = 0
        var seenDigit = false
        var leading = true
        var trailingZeros = 0
        var seenPoint = false
        var bytes = Substring(text).utf8[...]
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        while let byte = bytes.first, byte != UInt8(ascii: "e"), byte != UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if byte == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
                continue
            }
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            seenDigit = true
            if byte == UInt8(ascii: "0") {
                if !leading { trailingZeros += 1 }
                continue
            }
            leading = false
            digits += trailingZeros + 1
            trailingZeros = 0
        }
        guard seenDigit, digits <= maximumDigits else { return nil }
        if !bytes.isEmpty {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        }
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else { return nil }
        return value
    }
}

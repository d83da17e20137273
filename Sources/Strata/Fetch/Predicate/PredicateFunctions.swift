import Foundation
import GRDB

/// The one implementation of string folding, matching and localized ordering, used by
/// in-memory evaluation and registered as SQLite functions so that SQL calls the same code.
///
/// The store calls ``register(in:)`` on every connection it opens:
/// - `strata_fold(text, options)` → the folded text (NULL for NULL);
/// - `strata_match(text, pattern, operation, options)` → 1 or 0 (0 when either is NULL);
///   the pattern is already folded, the text is folded here;
/// - collation `strata_localized` → `localizedStandardCompare`.
enum PredicateFunctions {
    static let foldFunctionName = "strata_fold"
    static let matchFunctionName = "strata_match"
    static let localizedCollationName = "strata_localized"

    /// The string operators `strata_match` performs (their raw values are bound into SQL).
    enum MatchOperation: Int, Sendable {
        case beginsWith = 1, endsWith, contains, like, matches

        init?(_ op: PredicateOperator) {
            switch op {
            case .beginsWith: self = .beginsWith
            case .endsWith: self = .endsWith
            case .contains: self = .contains
            case .like: self = .like
            case .matches: self = .matches
            default: return nil
            }
        }
    }

    /// Registers the functions and the collation on `db`.
    static func register(in db: Database) {
        db.add(function: foldFunction)
        db.add(function: matchFunction)
        db.add(collation: localizedCollation)
    }

    private static let foldFunction = DatabaseFunction(foldFunctionName, argumentCount: 2, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]) else { return nil }
        return fold(text, ObjectPredicate.StringOptions(rawValue: Int.fromDatabaseValue(values[1]) ?? 0))
    }

    private static let matchFunction = DatabaseFunction(matchFunctionName, argumentCount: 4, pure: true) { values in
        guard let text = String.fromDatabaseValue(values[0]), let pattern = String.fromDatabaseValue(values[1]),
              let operation = (Int.fromDatabaseValue(values[2])).flatMap(MatchOperation.init(rawValue:))
        else { return 0 }
        let options = ObjectPredicate.StringOptions(rawValue: Int.fromDatabaseValue(values[3]) ?? 0)
        let regex = operation == .matches ? cachedRegex(pattern, options) : nil
        return match(text, pattern, operation, options, regex: regex) ? 1 : 0
    }

    private static let localizedCollation = DatabaseCollation(localizedCollationName) { lhs, rhs in
        lhs.localizedStandardCompare(rhs)
    }

    /// Folds `text` as `[c]`/`[d]` ask: Foundation's `folding(options:locale: nil)`, with an
    /// equivalent ASCII fast path.
    static func fold(_ text: String, _ options: ObjectPredicate.StringOptions) -> String {
        if options.isEmpty { return text }
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            guard options.contains(.caseInsensitive), text.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
            return String(decoding: text.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        var compareOptions: String.CompareOptions = []
        if options.contains(.caseInsensitive) { compareOptions.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { compareOptions.insert(.diacriticInsensitive) }
        return text.folding(options: compareOptions, locale: nil)
    }

    /// Whether `text`, folded with `options`, matches the already folded `pattern`.
    /// Strings compare by their UTF-8 bytes; LIKE works on Unicode scalars.
    static func match(
        _ text: String, _ pattern: String, _ operation: MatchOperation, _ options: ObjectPredicate.StringOptions,
        regex: NSRegularExpression?
    ) -> Bool {
        if operation == .matches {
            guard let regex else { return false }
            let range = NSRange(text.startIndex..., in: text)
            return regex.firstMatch(in: text, options: [], range: range) != nil
        }
        let folded = fold(text, options)
        switch operation {
        case .beginsWith: return folded.utf8.starts(with: pattern.utf8)
        case .endsWith: return folded.utf8.reversed().starts(with: pattern.utf8.reversed())
        case .contains: return containsBytes(Array(folded.utf8), Array(pattern.utf8))
        case .like: return like(Array(folded.unicodeScalars), Array(pattern.unicodeScalars))
        case .matches: return false
        }
    }

    /// The regular expression for MATCHES: the whole string must match; `[c]` ignores case.
    static func makeRegex(_ pattern: String, _ options: ObjectPredicate.StringOptions) -> NSRegularExpression? {
        try? NSRegularExpression(pattern: "^(?:\(pattern))$",
                                 options: options.contains(.caseInsensitive) ? [.caseInsensitive] : [])
    }

    /// MATCHES in SQL sees its pattern on every row; compile each pattern once.
    private static let regexCache = Locked<[String: NSRegularExpression]>([:])

    private static func cachedRegex(_ pattern: String, _ options: ObjectPredicate.StringOptions) -> NSRegularExpression? {
        let key = "\(options.rawValue):\(pattern)"
        if let regex = regexCache.withLock({ $0[key] }) { return regex }
        guard let regex = makeRegex(pattern, options) else { return nil }
        regexCache.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
        }
        return regex
    }

    private static func containsBytes(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        if needle.isEmpty { return true }
        guard haystack.count >= needle.count else { return false }
        let first = needle[0]
        for start in 0...(haystack.count - needle.count) where haystack[start] == first {
            var i = 1
            while i < needle.count && haystack[start + i] == needle[i] { i += 1 }
            if i == needle.count { return true }
        }
        return false
    }

    /// NSPredicate LIKE: `*` any run, `?` one character, `\` makes the next one literal;
    /// anchored at both ends.
    private static func like(_ text: [Unicode.Scalar], _ pattern: [Unicode.Scalar]) -> Bool {
        var t = 0, p = 0
        var starP = -1, starT = 0
        while t < text.count {
            if p < pattern.count {
                let c = pattern[p]
                if c == "*" {
                    starP = p; starT = t; p += 1
                    continue
                }
                if c == "\\", p + 1 < pattern.count {
                    if pattern[p + 1] == text[t] { p += 2; t += 1; continue }
                } else if c == "?" || c == text[t] {
                    p += 1; t += 1
                    continue
                }
            }
            guard starP >= 0 else { return false }
            starT += 1
            t = starT
            p = starP + 1
        }
        while p < pattern.count && pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

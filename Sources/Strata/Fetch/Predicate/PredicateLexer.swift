/// A token of the predicate format syntax, with the character offset where it starts.
struct PredicateToken: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        /// A key path or key word (`title`, `folder.name`, `tags.@count`, `AND`); `#`-escaped
        /// names are never key words.
        case identifier(String, escaped: Bool)
        case string(String)
        case integer(Int64)
        case double(Double)
        /// Punctuation and symbolic operators: `( ) { } , == != < <= > >= && || !` …
        case symbol(String)
        /// A format specifier without the `%`: `@`, `K`, `d`, `i`, `ld`, `f` …
        case argument(String)
        case end
    }

    var kind: Kind
    var position: Int
}

/// Splits a format string into tokens.
struct PredicateLexer {
    private let chars: [Character]
    private var index = 0

    init(_ format: String) { chars = Array(format) }

    /// All tokens, ending with `.end`.
    mutating func tokenize() throws(StrataError) -> [PredicateToken] {
        var tokens: [PredicateToken] = []
        while true {
            let token = try next()
            tokens.append(token)
            if token.kind == .end { return tokens }
        }
    }

    private func peek(_ offset: Int = 0) -> Character? {
        index + offset < chars.count ? chars[index + offset] : nil
    }

    private static let symbols = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||", "=", "<", ">", "!", "(", ")", "{", "}", ",", "[", "]"]

    private mutating func next() throws(StrataError) -> PredicateToken {
        while let c = peek(), c.isWhitespace { index += 1 }
        let start = index
        guard let c = peek() else { return PredicateToken(kind: .end, position: start) }
        // A quote is recognised by its first scalar: a string that starts with a combining mark
        // makes one character of the opening quote and that mark.
        if let q = c.unicodeScalars.first, q == "\"" || q == "'" {
            return PredicateToken(kind: .string(try readString(quote: Character(q))), position: start)
        }
        if c.isNumber && c.isASCII || ((c == "-" || c == ".") && (peek(1).map { $0.isASCII && $0.isNumber } ?? false))
            || (c == "-" && peek(1) == "." && (peek(2).map { $0.isASCII && $0.isNumber } ?? false)) {
            return PredicateToken(kind: try readNumber(), position: start)
        }
        if c == "%" { return PredicateToken(kind: try readSpecifier(), position: start) }
        if c == "$" {
            // A variable (`$n`, `$n.rank`): `$` and a key, then the key path's other keys.
            index += 1
            let name = readIdentifier()
            guard let first = name.first, first == "_" || first.isLetter else { throw PredicateParser.error("a variable name after $", at: start) }
            return PredicateToken(kind: .identifier("$" + name, escaped: false), position: start)
        }
        if c == ".", peek(1) == "@" {
            // `.@count` after `SUBQUERY(…)`.
            return PredicateToken(kind: .identifier(readIdentifier(), escaped: false), position: start)
        }
        if c == "#" || c == "@" || c == "_" || c.isLetter {
            // The `#` stays in the name: `PredicateParser.splitKeyPath` removes one in front of
            // each key, so the first key is unescaped once, like every other.
            let escaped = c == "#"
            let name = readIdentifier()
            guard name != "#" else { throw PredicateParser.error("a key after #", at: start) }
            return PredicateToken(kind: .identifier(name, escaped: escaped), position: start)
        }
        for symbol in Self.symbols where matches(symbol) {
            index += symbol.count
            return PredicateToken(kind: .symbol(symbol), position: start)
        }
        throw PredicateParser.error("an expression, not \"\(c)\"", at: start)
    }

    private func matches(_ symbol: String) -> Bool {
        var i = index
        for s in symbol {
            guard i < chars.count, chars[i] == s else { return false }
            i += 1
        }
        return true
    }

    private mutating func readIdentifier() -> String {
        var name = ""
        while let c = peek(), c.isLetter || c.isNumber || c == "_" || c == "." || c == "@" || c == "#" {
            name.append(c)
            index += 1
        }
        return name
    }

    /// Reads a string literal. Escapes are read by their first scalar, and what follows it in
    /// the same character is kept: after `\r` (a control character) a combining mark starts a
    /// character of its own, so `PredicateFormatter` writes `\\r` and the mark, which read as
    /// one character `r` + mark (found by fuzzing: the mark ate the escape).
    private mutating func readString(quote: Character) throws(StrataError) -> String {
        let start = index
        var value = ""
        value.unicodeScalars.append(contentsOf: chars[index].unicodeScalars.dropFirst())   // marks on the opening quote
        index += 1
        while let c = peek() {
            index += 1
            if c == quote { return value }
            guard c == "\\" else { value.append(c); continue }
            guard let escaped = peek() else { break }
            index += 1
            var scalars = escaped.unicodeScalars[...]
            let first = scalars.removeFirst()
            switch first {
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            default: value.unicodeScalars.append(first)
            }
            value.unicodeScalars.append(contentsOf: scalars)
        }
        throw PredicateParser.error("a closing \(quote) for the string", at: start)
    }

    private mutating func readNumber() throws(StrataError) -> PredicateToken.Kind {
        let start = index
        var text = ""
        if peek() == "-" { text.append("-"); index += 1 }
        var isDouble = false
        while let c = peek() {
            if c.isASCII && c.isNumber {
                text.append(c)
            } else if c == "." && !isDouble && (peek(1).map { $0.isASCII && $0.isNumber } ?? false) {
                isDouble = true
                text.append(c)
            } else if (c == "e" || c == "E"), let n = peek(1), n.isASCII && (n.isNumber || n == "-" || n == "+") {
                isDouble = true
                text.append(c)
                text.append(n)
                index += 1
            } else {
                break
            }
            index += 1
        }
        if !isDouble, let value = Int64(text) { return .integer(value) }
        // A literal too large for a double (`8e400`) is refused here, not read as infinity:
        // infinity has no literal, so the predicate's description would not parse back.
        guard let value = Double(text), value.isFinite else { throw PredicateParser.error("a number", at: start) }
        return .double(value)
    }

    private mutating func readSpecifier() throws(StrataError) -> PredicateToken.Kind {
        let start = index
        index += 1
        for spec in ["@", "K", "lld", "ld", "lu", "d", "i", "u", "lf", "f"] where matches(spec) {
            index += spec.count
            return .argument(spec)
        }
        throw PredicateParser.error("a format specifier (%@, %K, %d, %i, %ld, %f)", at: start)
    }
}

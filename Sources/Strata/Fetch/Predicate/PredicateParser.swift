import Foundation

/// A recursive-descent parser for the NSPredicate format syntax (the subset described in
/// docs/predicates.md). Precedence, loosest first: `OR`, `AND`, `NOT`, comparison.
struct PredicateParser {
    private let format: String
    private let arguments: [Any?]
    private var tokens: [PredicateToken] = []
    private var position = 0
    private var argumentIndex = 0
    /// The `NOT`s and parentheses open at the current token.
    private var depth = 0
    /// The variables of the SUBQUERYs open at the current token; any other `$name` standing
    /// alone is a substitution variable.
    private var subqueryVariables: [String] = []

    init(format: String, arguments: [Any?]) {
        self.format = format
        self.arguments = arguments
    }

    /// The error for "expected `expected`" at character offset `position`.
    static func error(_ expected: String, at position: Int) -> StrataError {
        StrataError(.malformedPredicate, "Expected \(expected).", position: position)
    }

    /// Words with a meaning of their own; escape a key spelled like one with `#`.
    static let keywords: Set<String> = [
        "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "BETWEEN", "IN", "BEGINSWITH", "ENDSWITH",
        "CONTAINS", "LIKE", "MATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "NIL", "NULL", "TRUE",
        "FALSE", "YES", "NO", "CAST", "SELF", "SUBQUERY",
    ]

    mutating func parse() throws(StrataError) -> PredicateNode {
        var lexer = PredicateLexer(format)
        tokens = try lexer.tokenize()
        let node = try parseOr()
        guard case .end = current.kind else { throw Self.error("AND, OR or the end of the predicate", at: current.position) }
        guard argumentIndex == arguments.count else {
            throw StrataError(.malformedPredicate, "\(arguments.count) arguments were given but the format uses \(argumentIndex).",
                              position: current.position)
        }
        return node
    }

    // MARK: Tokens

    private var current: PredicateToken { tokens[position] }

    /// Whether the token after the current one is `(`.
    private var nextIsOpeningParenthesis: Bool {
        guard position + 1 < tokens.count, case .symbol("(") = tokens[position + 1].kind else { return false }
        return true
    }

    private mutating func advance() { if position < tokens.count - 1 { position += 1 } }

    /// The upper-cased key word at the current token, if it is one.
    private var keyword: String? {
        guard case .identifier(let name, false) = current.kind else { return nil }
        let upper = name.uppercased()
        return Self.keywords.contains(upper) ? upper : nil
    }

    private func isSymbol(_ symbols: String...) -> Bool {
        if case .symbol(let s) = current.kind { return symbols.contains(s) }
        return false
    }

    private mutating func expectSymbol(_ symbol: String, _ what: String) throws(StrataError) {
        guard isSymbol(symbol) else { throw Self.error(what, at: current.position) }
        advance()
    }

    // MARK: Logic

    private mutating func parseOr() throws(StrataError) -> PredicateNode {
        var nodes = [try parseAnd()]
        while keyword == "OR" || isSymbol("||") {
            advance()
            nodes.append(try parseAnd())
        }
        return nodes.count == 1 ? nodes[0] : .or(nodes)
    }

    private mutating func parseAnd() throws(StrataError) -> PredicateNode {
        var nodes = [try parseNot()]
        while keyword == "AND" || isSymbol("&&") {
            advance()
            nodes.append(try parseNot())
        }
        return nodes.count == 1 ? nodes[0] : .and(nodes)
    }

    /// How deep `NOT`s and parentheses may nest. Found by fuzzing: 135 nested `!` parsed, and
    /// the SQL they compile to overflowed SQLite's parser stack at fetch time; much deeper
    /// nesting would overflow this parser's own stack (a trap, from a user's string).
    static let maximumNesting = 32

    private mutating func parseNot() throws(StrataError) -> PredicateNode {
        if keyword == "NOT" || isSymbol("!") || isSymbol("(") {
            // A NOT right before a parenthesis is one level with it: the description writes
            // `!!a == 1` as `NOT (NOT (a == 1))`, which must parse too.
            let counted = isSymbol("(") || !nextIsOpeningParenthesis
            if counted {
                guard depth < Self.maximumNesting else {
                    throw StrataError(.malformedPredicate, "The predicate nests NOT and parentheses more than \(Self.maximumNesting) deep.",
                                      position: current.position)
                }
                depth += 1
            }
            defer { if counted { depth -= 1 } }
            if isSymbol("(") {
                advance()
                let node = try parseOr()
                try expectSymbol(")", "a closing parenthesis")
                return node
            }
            advance()
            return .not(try parseNot())
        }
        switch keyword {
        case "TRUEPREDICATE": advance(); return .constant(true)
        case "FALSEPREDICATE": advance(); return .constant(false)
        default: return try parseComparison()
        }
    }

    // MARK: Comparisons

    /// One side of a comparison.
    private enum Side {
        case keyPath([String])
        case value(PredicateOperand)
        /// `SUBQUERY(keyPath, $variable, predicate).@count`.
        case subquery([String], PredicateSubquery)
    }

    private mutating func parseComparison() throws(StrataError) -> PredicateNode {
        var quantifier: PredicateQuantifier?
        switch keyword {
        case "ANY", "SOME": quantifier = .any
        case "ALL": quantifier = .all
        case "NONE": quantifier = .noneMatch
        default: break
        }
        if quantifier != nil { advance() }
        let lhsPosition = current.position
        let lhs = try parseSide()
        let op = try parseOperator()
        let options = try parseOptions()
        let rhsPosition = current.position
        let rhs = try parseSide()

        let keyPath: [String]
        var op2 = op
        var value: PredicateOperand
        var subquery: PredicateSubquery?
        switch (lhs, rhs) {
        case (.keyPath(let path), .value(let v)):
            keyPath = path
            value = v
        case (.keyPath(let path), .keyPath(let other)):
            if let name = variableName(other) {
                keyPath = path
                value = .variable(name)
            } else if let name = variableName(path) {
                guard quantifier == nil else { throw Self.error("a key path after \(quantifier?.rawValue ?? "")", at: lhsPosition) }
                guard let mirrored = op.mirrored else { throw Self.error("a key path on the left of \(op.rawValue)", at: lhsPosition) }
                op2 = mirrored
                keyPath = other
                value = .variable(name)
            } else {
                keyPath = path
                value = .keyPath(other)
            }
        case (.subquery(let path, let s), .keyPath(let other)) where variableName(other) != nil:
            keyPath = path
            subquery = s
            value = .variable(variableName(other) ?? "")
        case (.subquery(let path, let s), .value(let v)):
            keyPath = path
            subquery = s
            value = v
        case (.value(let v), .subquery(let path, let s)):
            guard let mirrored = op.mirrored else { throw Self.error("SUBQUERY(…).@count on the left of \(op.rawValue)", at: lhsPosition) }
            op2 = mirrored
            keyPath = path
            subquery = s
            value = v
        case (.value(let v), .keyPath(let path)):
            guard quantifier == nil else { throw Self.error("a key path after \(quantifier?.rawValue ?? "")", at: lhsPosition) }
            if let mirrored = op.mirrored {
                op2 = mirrored
            } else if op == .in, case .single = v {
                op2 = .equalTo  // `value IN toMany.key` is `ANY toMany.key == value`
            } else {
                throw Self.error("a key path on the left of \(op.rawValue)", at: lhsPosition)
            }
            keyPath = path
            value = v
        case (.value, .value):
            throw Self.error("a key path on one side of \(op.rawValue)", at: lhsPosition)
        case (.keyPath, _), (.subquery, _):
            throw Self.error("a value or a key path of the object on the right of \(op.rawValue)", at: rhsPosition)
        }
        if subquery != nil, let quantifier {
            throw Self.error("a key path after \(quantifier.rawValue), not SUBQUERY (its @count is one number)", at: lhsPosition)
        }
        try Self.check(value, after: op2, at: rhsPosition)
        return .comparison(PredicateComparison(quantifier: quantifier, keyPath: keyPath, op: op2, options: options, value: value, subquery: subquery))
    }

    /// The name of a substitution variable, when `path` is one `$name` that is no SUBQUERY's variable.
    private func variableName(_ path: [String]) -> String? {
        guard path.count == 1, path[0].hasPrefix("$"), !subqueryVariables.contains(path[0]) else { return nil }
        return String(path[0].dropFirst())
    }

    /// Throws unless `value` fits `op`: two values for BETWEEN, an aggregate for IN, a string
    /// for the string operators, a key path only for `==`, `!=`, `<`, `<=`, `>`, `>=`.
    /// A variable is checked once substituted.
    static func check(_ value: PredicateOperand, after op: PredicateOperator, at position: Int?) throws(StrataError) {
        func failure(_ expected: String) -> StrataError {
            StrataError(.malformedPredicate, "Expected \(expected).", position: position)
        }
        switch (op, value) {
        case (_, .variable): return
        case (.equalTo, .keyPath), (.notEqualTo, .keyPath), (.lessThan, .keyPath), (.lessThanOrEqualTo, .keyPath),
             (.greaterThan, .keyPath), (.greaterThanOrEqualTo, .keyPath): return
        case (_, .keyPath): throw failure("a value after \(op.rawValue); a key path compares with ==, !=, <, <=, > or >= only")
        case (.between, .list(let list)) where list.count == 2: break
        case (.between, _): throw failure("an aggregate of two values {low, high} after BETWEEN")
        case (.in, .list): break
        case (.in, .single): throw failure("an aggregate {…} or an array argument after IN")
        case (_, .list): throw failure("a single value after \(op.rawValue), not an aggregate")
        default: break
        }
        if case .single(let v) = value, op.isStringOperator, !(v.isNull || v.isStringLike) {
            throw failure("a string after \(op.rawValue)")
        }
    }

    private mutating func parseOperator() throws(StrataError) -> PredicateOperator {
        let op: PredicateOperator?
        switch current.kind {
        case .symbol("=="), .symbol("="): op = .equalTo
        case .symbol("!="), .symbol("<>"): op = .notEqualTo
        case .symbol("<"): op = .lessThan
        case .symbol("<="), .symbol("=<"): op = .lessThanOrEqualTo
        case .symbol(">"): op = .greaterThan
        case .symbol(">="), .symbol("=>"): op = .greaterThanOrEqualTo
        default:
            switch keyword {
            case "BETWEEN": op = .between
            case "IN": op = .in
            case "BEGINSWITH": op = .beginsWith
            case "ENDSWITH": op = .endsWith
            case "CONTAINS": op = .contains
            case "LIKE": op = .like
            case "MATCHES": op = .matches
            default: op = nil
            }
        }
        guard let op else { throw Self.error("a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES)", at: current.position) }
        advance()
        return op
    }

    /// `[c]`, `[d]`, `[cd]` after an operator (nothing if there is no `[`).
    private mutating func parseOptions() throws(StrataError) -> ObjectPredicate.StringOptions {
        guard isSymbol("[") else { return [] }
        advance()
        var options: ObjectPredicate.StringOptions = []
        guard case .identifier(let flags, false) = current.kind,
              !flags.isEmpty, flags.lowercased().allSatisfy({ $0 == "c" || $0 == "d" })
        else { throw Self.error("modifiers c, d or cd inside [ ]", at: current.position) }
        for flag in flags.lowercased() { options.insert(flag == "c" ? .caseInsensitive : .diacriticInsensitive) }
        advance()
        try expectSymbol("]", "] after the modifiers")
        return options
    }

    private mutating func parseSide() throws(StrataError) -> Side {
        let token = current
        switch token.kind {
        case .identifier(let name, let escaped):
            if !escaped, let word = keyword {
                advance()
                switch word {
                case "NIL", "NULL": return .value(.single(.null))
                case "TRUE", "YES": return .value(.single(.bool(true)))
                case "FALSE", "NO": return .value(.single(.bool(false)))
                case "CAST": return .value(.single(try parseCast()))
                case "SUBQUERY": return try parseSubquery()
                case "SELF": return .keyPath([])
                default: throw Self.error("a key path or a value, not the key word \(word)", at: token.position)
                }
            }
            advance()
            // `SELF.title` is `title`.
            if !escaped, name.count > 5, name.prefix(5).uppercased() == "SELF." {
                return .keyPath(try Self.splitKeyPath(String(name.dropFirst(5)), at: token.position))
            }
            return .keyPath(try Self.splitKeyPath(name, at: token.position))
        case .string(let s): advance(); return .value(.single(.string(s)))
        case .integer(let i): advance(); return .value(.single(.integer(i)))
        case .double(let d): advance(); return .value(.single(.double(d)))
        case .symbol("{"):
            advance()
            return .value(.list(try parseAggregate()))
        case .argument(let spec):
            advance()
            return try substitute(spec, at: token.position)
        case .end:
            throw Self.error("a key path or a value, not the end of the predicate", at: token.position)
        case .symbol(let s):
            throw Self.error("a key path or a value, not \"\(s)\"", at: token.position)
        }
    }

    /// The values of `{a, b, …}` after its `{`.
    private mutating func parseAggregate() throws(StrataError) -> [PropertyValue] {
        var values: [PropertyValue] = []
        if isSymbol("}") { advance(); return values }
        while true {
            let at = current.position
            // Refused before reading it: a nested aggregate was read first and refused after,
            // so `{{{{…` recursed until the stack overflowed (a trap, found by fuzzing).
            if isSymbol("{") { throw Self.error("a single value in the aggregate, not a nested {", at: at) }
            guard case .value(.single(let v)) = try parseSide() else { throw Self.error("a single value in the aggregate", at: at) }
            values.append(v)
            if isSymbol("}") { advance(); return values }
            try expectSymbol(",", ", or } in the aggregate")
        }
    }

    /// How many levels of ``maximumNesting`` a SUBQUERY takes: its SQL (a correlated
    /// subquery, one more per to-one before its to-many) fills SQLite's parser stack about as
    /// fast as 8 `NOT (`. Found by a test: 32 nested SUBQUERYs, each one level, overflowed
    /// SQLite's parser stack at fetch time; four through two to-ones each, and three with 8
    /// `NOT`s inside, fetch.
    static let subqueryNestingCost = 8

    /// `(keyPath, $variable, predicate).@count` after `SUBQUERY`. Counts as
    /// ``subqueryNestingCost`` levels of nesting.
    private mutating func parseSubquery() throws(StrataError) -> Side {
        try expectSymbol("(", "( after SUBQUERY")
        guard depth + Self.subqueryNestingCost <= Self.maximumNesting else {
            throw StrataError(.malformedPredicate, "The predicate nests NOT, parentheses and SUBQUERY more than \(Self.maximumNesting) deep (a SUBQUERY counts \(Self.subqueryNestingCost)).",
                              position: current.position)
        }
        depth += Self.subqueryNestingCost
        defer { depth -= Self.subqueryNestingCost }
        let collectionPosition = current.position
        guard case .keyPath(let collection) = try parseSide() else {
            throw Self.error("a to-many key path as the first argument of SUBQUERY", at: collectionPosition)
        }
        try expectSymbol(",", ", after the key path of SUBQUERY")
        guard case .identifier(let variable, false) = current.kind, variable.hasPrefix("$"), !variable.contains(".") else {
            throw Self.error("a variable such as $n as the second argument of SUBQUERY", at: current.position)
        }
        advance()
        try expectSymbol(",", ", after the variable of SUBQUERY")
        subqueryVariables.append(variable)
        defer { subqueryVariables.removeLast() }
        let predicate = try parseOr()
        try expectSymbol(")", ") to close SUBQUERY")
        guard case .identifier(".@count", false) = current.kind else {
            throw Self.error(".@count after SUBQUERY(…) (a subquery is used through its count)", at: current.position)
        }
        advance()
        return .subquery(collection, PredicateSubquery(variable: variable, predicate: predicate))
    }

    /// `CAST(number, "NSDate")` after `CAST`: a date, as seconds since 2001 (as NSPredicate).
    private mutating func parseCast() throws(StrataError) -> PropertyValue {
        try expectSymbol("(", "( after CAST")
        let seconds: Double
        switch current.kind {
        case .integer(let i): seconds = Double(i)
        case .double(let d) where d.isFinite: seconds = d
        case .double: throw Self.error("a finite number in CAST (this one overflows a Double)", at: current.position)
        default: throw Self.error("a number in CAST", at: current.position)
        }
        advance()
        try expectSymbol(",", ", in CAST")
        guard case .string("NSDate") = current.kind else { throw Self.error("\"NSDate\" (the only supported CAST)", at: current.position) }
        advance()
        try expectSymbol(")", ") after CAST")
        return .date(Date(timeIntervalSinceReferenceDate: seconds))
    }

    private mutating func substitute(_ spec: String, at position: Int) throws(StrataError) -> Side {
        guard argumentIndex < arguments.count else {
            throw StrataError(.malformedPredicate, "Missing argument for %\(spec) (only \(arguments.count) given).", position: position)
        }
        let argument = arguments[argumentIndex]
        argumentIndex += 1
        switch spec {
        case "K":
            guard let path = PredicateArgument.keyPath(argument) else { throw Self.error("a String key path argument for %K", at: position) }
            return .keyPath(try Self.splitKeyPath(path, at: position))
        case "@":
            guard let operand = PredicateArgument.operand(argument) else {
                throw Self.error("a supported value for %@ (String, number, Bool, Date, Data, UUID, URL, Decimal, ObjectID, PredicateArgumentConvertible, or an array of them), not \(type(of: argument as Any))", at: position)
            }
            return .value(operand)
        case "f", "lf":
            guard let v = PredicateArgument.double(argument) else { throw Self.error("a number argument for %\(spec)", at: position) }
            return .value(.single(.double(v)))
        default:
            guard let v = PredicateArgument.integer(argument) else { throw Self.error("an integer argument for %\(spec)", at: position) }
            return .value(.single(.integer(v)))
        }
    }

    /// `folder.name` → `["folder", "name"]`, `#in.#by` → `["in", "by"]`; rejects empty
    /// segments and a `#` anywhere but as one escape in front of a key (found by fuzzing:
    /// `##uid` was the key `#uid` once parsed and `uid` once printed and parsed again).
    static func splitKeyPath(_ path: String, at position: Int) throws(StrataError) -> [String] {
        let segments = path.split(separator: ".", omittingEmptySubsequences: false).map {
            $0.hasPrefix("#") ? String($0.dropFirst()) : String($0)
        }
        guard !segments.contains(where: \.isEmpty) else { throw error("a key path without empty segments, not \"\(path)\"", at: position) }
        // A variable (`$n`) may only start the key path, as the lexer reads it; `%K` strings
        // are held to the same rule so that every parsed predicate prints back.
        guard !segments.dropFirst().contains(where: { $0.contains("$") }),
              segments.first.map({ !$0.dropFirst().contains("$") && ($0.first != "$" || $0.dropFirst().first.map { $0 == "_" || $0.isLetter } == true) }) ?? true
        else { throw error("a key path with $ only in front of a variable that starts it, not \"\(path)\"", at: position) }
        guard !segments.contains(where: { $0.contains("#") }) else {
            throw error("a key path with # only as one escape in front of a key, not \"\(path)\"", at: position)
        }
        return segments
    }
}

extension PropertyValue {
    /// Whether the value compares as a string (strings, UUIDs, URLs).
    var isStringLike: Bool {
        switch self {
        case .string, .uuid, .url: true
        default: false
        }
    }
}

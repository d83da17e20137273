import Foundation

/// Prints a predicate tree back in the format syntax (what ``ObjectPredicate/description`` shows).
enum PredicateFormatter {
    static func format(_ node: PredicateNode) -> String {
        switch node {
        case .constant(let value): value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let inner): "NOT " + grouped(inner, unless: { if case .comparison = $0 { true } else if case .constant = $0 { true } else { false } })
        case .and(let nodes): nodes.map { grouped($0, unless: { if case .or = $0 { false } else { true } }) }.joined(separator: " AND ")
        case .or(let nodes): nodes.map { grouped($0, unless: { _ in true }) }.joined(separator: " OR ")
        case .comparison(let c): format(c)
        }
    }

    private static func grouped(_ node: PredicateNode, unless bare: (PredicateNode) -> Bool) -> String {
        if case .or = node, !bare(node) { return "(\(format(node)))" }
        if bare(node) { return format(node) }
        return "(\(format(node)))"
    }

    private static func format(_ c: PredicateComparison) -> String {
        var text = ""
        if let quantifier = c.quantifier { text += quantifier.rawValue + " " }
        let keyPath = path(c.keyPath)
        if let subquery = c.subquery {
            text += "SUBQUERY(\(keyPath), \(subquery.variable), \(format(subquery.predicate))).@count"
        } else {
            text += keyPath
        }
        text += " " + c.op.rawValue
        if !c.options.isEmpty {
            text += "[" + (c.options.contains(.caseInsensitive) ? "c" : "") + (c.options.contains(.diacriticInsensitive) ? "d" : "") + "]"
        }
        switch c.value {
        case .single(let v): text += " " + literal(v)
        case .list(let vs): text += " {" + vs.map(literal).joined(separator: ", ") + "}"
        case .keyPath(let other): text += " " + path(other)
        case .variable(let name): text += " $" + name
        }
        return text
    }

    /// A key path as written; `SELF` when empty.
    private static func path(_ keys: [String]) -> String {
        keys.isEmpty ? "SELF" : keys.map(escapedKey).joined(separator: ".")
    }

    /// A key, with `#` in front when it is spelled like a key word or does not start as a key
    /// does (a letter or `_`: `#5` is the key `5`, found by fuzzing; `5` alone is a number).
    private static func escapedKey(_ key: String) -> String {
        guard let first = key.first, first != "@", first != "$" else { return key }
        let startsAsKey = first == "_" || first.isLetter
        return startsAsKey && !PredicateParser.keywords.contains(key.uppercased()) ? key : "#" + key
    }

    /// A value as a literal the parser reads back.
    static func literal(_ value: PropertyValue) -> String {
        switch value {
        case .null: "nil"
        case .integer(let v): String(v)
        case .double(let v): v.isFinite ? "\(v)" : "<\(v)>"
        case .bool(let v): v ? "TRUE" : "FALSE"
        case .string(let s): quotedString(s)
        case .date(let d): "CAST(\(d.timeIntervalSinceReferenceDate), \"NSDate\")"
        case .uuid(let u): quotedString(u.uuidString)
        case .url(let u): quotedString(u.absoluteString)
        case .decimal(let d): d.description
        case .data, .transformed, .objectID, .objectIDs: "<\(value)>"
        }
    }

    private static func quotedString(_ s: String) -> String {
        var out = "\""
        for c in s {
            switch c {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case "\0": out += "\\0"
            default: out.append(c)
            }
        }
        return out + "\""
    }
}

/// How a derived attribute's value is computed: a parsed ``AttributeDescription/derivationExpression``.
///
/// The expression language is the part of Core Data's `derivationExpression` that Strata
/// supports:
///
/// | expression | value |
/// |---|---|
/// | `folder.name` | an attribute of a to-one's destination (one hop); nil when the to-one is nil |
/// | `notes.@count` | the number of members of a to-many |
/// | `notes.@sum.rank`, `@min`, `@max`, `@avg` | an aggregate of a number (or date, for min/max) attribute of a to-many's members; `@sum` over none is 0, the others nil |
/// | `lowercase:(title)`, `uppercase:(title)` | a string attribute of the same object, lower- or upper-cased (Unicode, Swift's `lowercased()`/`uppercased()`) |
/// | `canonical:(title)` | a string attribute folded as `[cd]` folds it (case and diacritics) |
enum Derivation: Sendable, Hashable {
    /// The aggregates of a to-many's members.
    enum Aggregate: String, Sendable {
        case count, sum, min, max, avg
    }

    /// The string functions of the same object's attribute.
    enum StringFunction: String, Sendable {
        case lowercase, uppercase, canonical
    }

    /// `relationship.attribute` through a to-one.
    case toOne(relationship: String, attribute: String)
    /// `relationship.@count` (`attribute` nil) or `relationship.@sum.attribute` and the others.
    case toMany(Aggregate, relationship: String, attribute: String?)
    /// `function:(attribute)`.
    case function(StringFunction, attribute: String)

    /// Parses a derivation expression; nil when it is not one Strata supports.
    init?(parsing expression: String) {
        let text = expression.filter { !$0.isWhitespace }
        if let colon = text.firstIndex(of: ":") {
            guard let function = StringFunction(rawValue: String(text[..<colon])) else { return nil }
            var argument = text[text.index(after: colon)...]
            guard argument.hasPrefix("("), argument.hasSuffix(")") else { return nil }
            argument = argument.dropFirst().dropLast()
            guard Self.isKey(argument) else { return nil }
            self = .function(function, attribute: String(argument))
            return
        }
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard let relationship = parts.first, Self.isKey(relationship[...]) else { return nil }
        switch parts.count {
        case 2 where parts[1] == "@count":
            self = .toMany(.count, relationship: relationship, attribute: nil)
        case 2 where Self.isKey(parts[1][...]):
            self = .toOne(relationship: relationship, attribute: parts[1])
        case 3 where parts[1].hasPrefix("@") && Self.isKey(parts[2][...]):
            guard let aggregate = Aggregate(rawValue: String(parts[1].dropFirst())), aggregate != .count else { return nil }
            self = .toMany(aggregate, relationship: relationship, attribute: parts[2])
        default:
            return nil
        }
    }

    /// The relationship the value is read through, if any.
    var relationship: String? {
        switch self {
        case .toOne(let r, _), .toMany(_, let r, _): r
        case .function: nil
        }
    }

    /// The attribute the value is computed from, if any (none for `@count`).
    var attribute: String? {
        switch self {
        case .toOne(_, let a), .function(_, let a): a
        case .toMany(_, _, let a): a
        }
    }

    private static func isKey(_ text: Substring) -> Bool {
        guard let first = text.first, first.isLetter || first == "_" else { return false }
        return text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
    }
}

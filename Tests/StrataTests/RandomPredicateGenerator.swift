import Foundation
@testable import Strata

/// Generates random predicate format strings (with arguments) over the test model's `Item`.
struct RandomPredicateGenerator {
    var rng: SeededRandom
    let store: PredicateTestStore
    /// Put in front of every key path: `$v0.` inside a SUBQUERY over items.
    private var prefix = ""
    /// How many SUBQUERYs enclose the leaf being generated.
    private var subqueryDepth = 0
    /// The values of the `$sN` substitution variables of the last predicate generated.
    private(set) var variables: [String: Any?] = [:]

    /// Numeric key paths of an item, compared with one another.
    static let numericKeyPathOperands = [
        "count", "group.rank", "group.parent.rank", "score", "price", "flag", "tags.@count",
        "group.items.@count", "group.items.@sum.score", "group.children.@avg.rank", "detail.item.count",
    ]
    /// String key paths of an item, compared with one another.
    static let textKeyPathOperands = ["title", "name", "group.name", "group.parent.name", "detail.note", "detail.item.title", "uid"]
    /// Key paths ending at a group, compared with one another.
    static let groupKeyPathOperands = ["group", "group.parent", "detail.item.group", "group.parent.parent"]

    static let stringPaths = ["title", "name", "group.name", "group.parent.name", "detail.note", "group.parent.parent.name"]
    static let toManyStringPaths = ["tags.name", "group.children.name", "group.items.title", "tags.items.name"]
    static let integerPaths = ["count", "group.rank", "group.parent.rank"]
    static let countPaths = ["tags.@count", "group.items.@count", "group.children.@count", "group.parent.children.@count"]
    static let stringOperators = ["==", "=", "!=", "<>", "<", "<=", ">", ">=", "=<", "=>", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "IN", "BETWEEN", "beginswith", "like"]
    static let numericOperators = ["==", "!=", "<", "<=", ">", ">=", "BETWEEN", "IN"]
    static let modifiers = ["", "", "[c]", "[d]", "[cd]", "[C]", "[dc]"]
    static let quantifiers = ["", "ANY ", "SOME ", "ALL ", "NONE ", "any ", "all ", "none "]
    static let likePatterns = ["*b*", "?bc", "É*", "a*", "*", "?", "*\\\\**", "x\\\\?y", "r?sum?", "*é", "*BC", "", "e*c", "*?*"]
    /// Collection operators over to-many key paths, through to-ones before and after them.
    static let aggregatePaths = [
        "group.items.@sum.score", "group.items.@avg.count", "group.items.@min.price", "group.items.@max.score",
        "group.children.@sum.rank", "group.children.@avg.rank", "group.parent.children.@max.rank",
        "group.items.@min.group.rank", "group.items.@sum.price", "detail.item.group.items.@avg.score",
    ]
    static let aggregateValues: [Double?] = [nil, -1, 0, 1, 2, 2.5, 3, 4.5, 100]
    static let regexPatterns = ["a.*", "[a-z]+", ".*b.*", "ab?c", "R.*"]

    init(seed: UInt64, store: PredicateTestStore) {
        rng = SeededRandom(seed: seed)
        self.store = store
    }

    mutating func predicate() -> (format: String, arguments: [Any?]) {
        var arguments: [Any?] = []
        variables = [:]
        let format = node(depth: 0, &arguments)
        return (format, arguments)
    }

    private mutating func node(depth: Int, _ args: inout [Any?]) -> String {
        if depth < 3 && rng.chance(0.45) {
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: return "(\(node(depth: depth + 1, &args)) AND \(node(depth: depth + 1, &args)))"
            case 1: return "(\(node(depth: depth + 1, &args)) OR \(node(depth: depth + 1, &args)))"
            case 2: return "NOT (\(node(depth: depth + 1, &args)))"
            case 3: return "\(node(depth: depth + 1, &args)) && \(node(depth: depth + 1, &args)) || \(node(depth: depth + 1, &args))"
            case 4: return "!(\(node(depth: depth + 1, &args)))"
            default: return "not \(leaf(&args))"
            }
        }
        return leaf(&args)
    }

    private mutating func leaf(_ args: inout [Any?]) -> String {
        if rng.chance(0.12) { return keyPathComparisonLeaf(&args) }
        if rng.chance(0.14) {
            if rng.chance(0.5) { return numericLeaf(rng.pick(Self.aggregatePaths), values: Self.aggregateValues, &args) }
            if subqueryDepth < 2 { return subqueryLeaf(&args) }
        }
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<28: return stringLeaf(rng.pick(Self.stringPaths), quantifier: "", &args)
        case 28..<42: return stringLeaf(rng.pick(Self.toManyStringPaths), quantifier: rng.pick(Self.quantifiers), &args)
        case 42..<52: return numericLeaf(rng.pick(Self.integerPaths), values: PredicateFixtures.integers.map { $0.map(Double.init) }, &args)
        case 52..<58: return numericLeaf("score", values: PredicateFixtures.doubles, &args)
        case 58..<66: return numericLeaf(rng.pick(Self.countPaths), values: [0, 1, 2, 3, nil], &args)
        case 66..<70: return "\(keyPath("flag", &args)) \(rng.pick(["==", "!="])) \(rng.pick(["YES", "NO", "TRUE", "FALSE", "nil", "1", "0", "true"]))"
        case 70..<75: return dateLeaf(&args)
        case 75..<79: return numericLeaf("price", values: [0.5, 1, 2.25, -3, 2, nil], &args)
        case 79..<82: return uuidLeaf(&args)
        case 82..<85: return dataLeaf(&args)
        case 85..<95: return objectLeaf(&args)
        case 95..<97: return "\(rng.pick(Self.quantifiers))\(prefix)group.items.score \(rng.pick(["<", ">", "=="])) \(rng.pick(["0", "1", "2.5"]))"
        default: return rng.pick(["TRUEPREDICATE", "FALSEPREDICATE", "truepredicate"])
        }
    }

    /// `SUBQUERY(collection, $vN, …).@count` compared with a small number; over items the
    /// inner predicate is any generated predicate (nested SUBQUERYs included).
    private mutating func subqueryLeaf(_ args: inout [Any?]) -> String {
        let outer = prefix
        defer { prefix = outer; subqueryDepth -= 1 }
        let variable = "$v\(subqueryDepth)"
        subqueryDepth += 1
        let (collection, entity) = rng.pick([("group.items", "Item"), ("group.parent.items", "Item"), ("tags", "Tag"), ("group.children", "Group"), ("group.items", "Item")])
        let op = rng.pick(["==", "!=", "<", "<=", ">", ">="])
        let count = rng.pick(["0", "1", "2", "3"])
        let mirrored = rng.chance(0.15)
        prefix = variable + "."
        let inner: String
        switch entity {
        case "Item": inner = node(depth: 1, &args)
        case "Tag": inner = rng.chance(0.7) ? stringLeaf("name", quantifier: "", &args) : "\(variable).items.@count \(rng.pick([">", "=="])) 1"
        default: inner = rng.chance(0.5) ? numericLeaf("rank", values: PredicateFixtures.integers.map { $0.map(Double.init) }, &args)
            : "(\(stringLeaf("name", quantifier: "", &args)) OR \(variable).items.@count == 0)"
        }
        let subquery = "SUBQUERY(\(outer)\(collection), \(variable), \(inner)).@count"
        return mirrored ? "\(count) \(op) \(subquery)" : "\(subquery) \(op) \(count)"
    }

    /// Two key paths of the item compared (`count > group.rank`, `title ==[c] detail.note`,
    /// `group == detail.item.group`), the item itself (`SELF == %@`, `SELF IN %@`), or a key
    /// path with a `$sN` variable substituted afterwards.
    private mutating func keyPathComparisonLeaf(_ args: inout [Any?]) -> String {
        let ordering = ["==", "!=", "<", "<=", ">", ">=", "=<", "<>"]
        let this = prefix.isEmpty ? "SELF" : String(prefix.dropLast())   // inside a SUBQUERY: its variable
        switch Int.random(in: 0..<7, using: &rng) {
        case 0, 1:
            return "\(keyPath(rng.pick(Self.numericKeyPathOperands), &args)) \(rng.pick(ordering)) \(prefix)\(rng.pick(Self.numericKeyPathOperands))"
        case 2:
            let modifier = rng.pick(["", "", "[c]", "[d]", "[cd]"])
            return "\(keyPath(rng.pick(Self.textKeyPathOperands), &args)) \(rng.pick(ordering))\(modifier) \(prefix)\(rng.pick(Self.textKeyPathOperands))"
        case 3:
            return "\(prefix)\(rng.pick(Self.groupKeyPathOperands)) \(rng.pick(["==", "!="])) \(prefix)\(rng.pick(Self.groupKeyPathOperands))"
        case 4:
            if rng.chance(0.5) { return "\(this) \(rng.pick(["==", "!="])) \(prefix)detail.item" }
            if rng.chance(0.5) {
                args.append((0..<Int.random(in: 0...4, using: &rng)).map { _ in objectID("Item") })
                return "\(this) IN %@"
            }
            args.append(objectID("Item"))
            return rng.chance(0.5) ? "\(this) \(rng.pick(["==", "!="])) %@" : "%@ \(rng.pick(["==", "!="])) \(this)"
        case 5:
            let name = "s\(variables.count)"
            variables.updateValue(rng.pick(PredicateFixtures.integers).map { Int($0) }, forKey: name)   // nil stays a value
            let path = prefix + rng.pick(["count", "group.rank", "tags.@count"])
            return rng.chance(0.3) ? "$\(name) \(rng.pick(["<", ">=", "=="])) \(path)" : "\(path) \(rng.pick(ordering)) $\(name)"
        default:
            let name = "s\(variables.count)"
            variables.updateValue((0..<Int.random(in: 0...3, using: &rng)).map { _ in rng.pick(PredicateFixtures.strings) }, forKey: name)
            return "\(prefix)\(rng.pick(["title", "group.name"])) IN\(rng.pick(["", "[c]"])) $\(name)"
        }
    }

    /// `path` written directly or as `%K`, after the prefix.
    private mutating func keyPath(_ path: String, _ args: inout [Any?]) -> String {
        let path = prefix + path
        guard rng.chance(0.15) else { return path }
        args.append(path)
        return "%K"
    }

    private mutating func stringLiteral(_ s: String?, _ args: inout [Any?]) -> String {
        guard let s else { return rng.pick(["nil", "NULL", "nil"]) }
        if rng.chance(0.2) { args.append(s); return "%@" }
        let quote: Character = rng.chance(0.5) ? "\"" : "'"
        var out = String(quote)
        for c in s {
            if c == quote || c == "\\" { out.append("\\") }
            out.append(c)
        }
        out.append(quote)
        return out
    }

    private mutating func stringValue(_ args: inout [Any?], allowNil: Bool) -> String {
        let s = rng.pick(PredicateFixtures.strings)
        return stringLiteral(allowNil || rng.chance(0.1) ? s : (s ?? "abc"), &args)
    }

    private mutating func stringLeaf(_ path: String, quantifier: String, _ args: inout [Any?]) -> String {
        var op = rng.pick(Self.stringOperators)
        if rng.chance(0.03) { op = "MATCHES" }
        let modifier = op == "MATCHES" ? rng.pick(["", "[c]"]) : rng.pick(Self.modifiers)
        let lhs = quantifier + keyPath(path, &args) + " " + op + modifier + " "
        switch op.uppercased() {
        case "IN":
            if rng.chance(0.3) {
                args.append((0..<Int.random(in: 0...3, using: &rng)).map { _ in rng.pick(PredicateFixtures.strings) })
                return lhs + "%@"
            }
            let values = (0..<Int.random(in: 1...3, using: &rng)).map { _ in stringValue(&args, allowNil: true) }
            return lhs + "{" + values.joined(separator: ", ") + "}"
        case "BETWEEN":
            return lhs + "{\(stringValue(&args, allowNil: false)), \(stringValue(&args, allowNil: false))}"
        case "LIKE":
            return lhs + (rng.chance(0.7) ? "\"\(rng.pick(Self.likePatterns))\"" : stringValue(&args, allowNil: false))
        case "MATCHES":
            return lhs + "\"\(rng.pick(Self.regexPatterns))\""
        default:
            return lhs + stringValue(&args, allowNil: op.hasPrefix("=") || op.hasPrefix("!") || op == "<>")
        }
    }

    private mutating func numberLiteral(_ value: Double?, _ args: inout [Any?]) -> String {
        guard let value else { return "nil" }
        let isInteger = value.rounded() == value
        switch Int.random(in: 0..<5, using: &rng) {
        case 0: args.append(value); return "%@"
        case 1 where isInteger: args.append(Int(value)); return rng.pick(["%d", "%i", "%ld", "%@"])
        case 2: args.append(value); return "%f"
        default: return isInteger ? String(Int(value)) : String(value)
        }
    }

    private mutating func numericLeaf(_ path: String, values: [Double?], _ args: inout [Any?]) -> String {
        let op = rng.pick(Self.numericOperators)
        if op != "IN" && op != "BETWEEN" && rng.chance(0.1) {
            let value = numberLiteral(rng.pick(values) ?? 1, &args)
            return "\(value) \(op) \(path.contains("@") ? prefix + path : keyPath(path, &args))"
        }
        let lhs = path.contains("@") ? prefix + path : keyPath(path, &args)
        switch op {
        case "IN":
            let list = (0..<Int.random(in: 1...3, using: &rng)).map { _ in numberLiteral(rng.pick(values), &args) }
            return "\(lhs) IN {\(list.joined(separator: ", "))}"
        case "BETWEEN":
            return "\(lhs) BETWEEN {\(numberLiteral(rng.pick(values) ?? 0, &args)), \(numberLiteral(rng.pick(values) ?? 2, &args))}"
        default:
            return "\(lhs) \(op) \(numberLiteral(rng.pick(values), &args))"
        }
    }

    private mutating func dateLeaf(_ args: inout [Any?]) -> String {
        let op = rng.pick(["==", "!=", "<", "<=", ">", ">="])
        guard let seconds = rng.pick(PredicateFixtures.dates) else { return "\(prefix)created \(op) nil" }
        let date = Date(timeIntervalSince1970: seconds)
        if rng.chance(0.5) { args.append(date); return "\(prefix)created \(op) %@" }
        return "\(prefix)created \(op) CAST(\(date.timeIntervalSinceReferenceDate), \"NSDate\")"
    }

    private mutating func uuidLeaf(_ args: inout [Any?]) -> String {
        let uuid = rng.pick(PredicateFixtures.uuids)
        switch Int.random(in: 0..<3, using: &rng) {
        case 0: args.append(uuid); return "\(prefix)uid \(rng.pick(["==", "!="])) %@"
        case 1: return "\(prefix)uid BEGINSWITH\(rng.pick(["", "[c]"])) \"e6\""
        default: args.append(uuid?.uuidString); return "\(prefix)uid \(rng.pick(["==", "<", ">="])) %@"
        }
    }

    private mutating func dataLeaf(_ args: inout [Any?]) -> String {
        if rng.chance(0.3) {
            args.append(PredicateFixtures.blobs.compactMap { $0 }.filter { _ in rng.chance(0.5) })
            return "\(prefix)blob IN %@"
        }
        args.append(rng.pick(PredicateFixtures.blobs))
        return "\(prefix)blob \(rng.pick(["==", "!="])) %@"
    }

    private mutating func objectID(_ entity: String) -> Any? {
        let e = store.entity(entity)
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return nil
        case 1: return ObjectID.temporary(e)
        case 2: return ObjectID(entity: e, key: 999)
        default: return ObjectID(entity: e, key: Int64(Int.random(in: 1...(store.objects[entity]?.count ?? 1), using: &rng)))
        }
    }

    private mutating func objectLeaf(_ args: inout [Any?]) -> String {
        let (path, entity) = rng.pick([("group", "Group"), ("detail", "Detail"), ("group.parent", "Group"), ("tags", "Tag"), ("detail.item", "Item"), ("group.items", "Item")])
        if rng.chance(0.25) {
            args.append((0..<Int.random(in: 0...3, using: &rng)).map { _ in objectID(entity) })
            return "\(prefix)\(path) IN %@"
        }
        if rng.chance(0.15) {
            args.append(objectID(entity) ?? ObjectID(entity: store.entity(entity), key: 1))
            return "%@ IN \(prefix)\(path)"
        }
        args.append(objectID(entity))
        return "\(path.contains("tags") || path.contains("items") ? rng.pick(Self.quantifiers) : "")\(prefix)\(path) \(rng.pick(["==", "!="])) %@"
    }
}

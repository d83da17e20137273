/// A key path in a predicate built in Swift; its operators and methods make
/// ``ObjectPredicate``s.
///
/// Start from ``ObjectPredicate/key(_:)`` (or `.any`, `.all`, `.none` for a to-many key path):
/// ```swift
/// let p: ObjectPredicate = .key("title").beginsWith("he", options: .caseInsensitive)
///     && .key("folder.name") == "Inbox"
///     && .any("tags.name") == "swift"
///     && .key("tags").count > 2
///     && !(.key("rating").isIn([1, 2]))
///     && .key("group.items").sum("score") > 10
///     && .subquery("tags", "$t", .key("$t.name").beginsWith("s")) > 0
///     && .key("rating") > .key("tags.@count")          // two key paths
///     && .key("SELF") != someNote                       // the object itself
///     && .key("created") >= .variable("since")          // substituted later
/// ```
public struct PredicateKey: Sendable, Hashable {
    let path: [String]
    let quantifier: PredicateQuantifier?
    /// Set when the key is `SUBQUERY(path, …).@count`.
    let subquery: PredicateSubquery?
    /// Set for ``variable(_:)``: `path` is its one `$name`.
    let isVariable: Bool

    init(path: [String], quantifier: PredicateQuantifier?, subquery: PredicateSubquery? = nil, isVariable: Bool = false) {
        self.path = path
        self.quantifier = quantifier
        self.subquery = subquery
        self.isVariable = isVariable
    }

    /// The key path `keyPath` (dot-separated, through to-one relationships; a to-many key
    /// path compared directly means ANY). `"SELF"` is the object itself (`SELF.title` is
    /// `title`).
    /// ```swift
    /// let p = PredicateKey.key("folder.name") == "Inbox"
    /// ```
    public static func key(_ keyPath: String) -> PredicateKey {
        var path = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if path.first == "SELF" { path.removeFirst() }
        return PredicateKey(path: path, quantifier: nil)
    }

    /// A `$variable` to compare a key with, given its value later by
    /// ``ObjectPredicate/withSubstitutionVariables(_:)`` (`name` with or without its `$`).
    /// ```swift
    /// let template = PredicateKey.key("rating") >= .variable("minimum")
    /// let p = try template.withSubstitutionVariables(["minimum": 3])
    /// ```
    public static func variable(_ name: String) -> PredicateKey {
        PredicateKey(path: [name.hasPrefix("$") ? name : "$" + name], quantifier: nil, isVariable: true)
    }

    /// True when at least one object of the to-many key path passes (`ANY`).
    /// ```swift
    /// let p = PredicateKey.any("tags.name") == "swift"
    /// ```
    public static func any(_ keyPath: String) -> PredicateKey { key(keyPath).quantified(.any) }

    /// True when every object of the to-many key path passes (`ALL`; true when there are none).
    /// ```swift
    /// let p = PredicateKey.all("tags.name").beginsWith("s")
    /// ```
    public static func all(_ keyPath: String) -> PredicateKey { key(keyPath).quantified(.all) }

    /// True when no object of the to-many key path passes (`NONE`).
    /// ```swift
    /// let p = PredicateKey.none("tags.name") == "draft"
    /// ```
    public static func none(_ keyPath: String) -> PredicateKey { key(keyPath).quantified(.noneMatch) }

    /// The number of objects of a to-many relationship (`@count`).
    /// ```swift
    /// let p = ObjectPredicate.key("tags").count >= 2
    /// ```
    public var count: PredicateKey { PredicateKey(path: path + ["@count"], quantifier: quantifier, subquery: subquery) }

    /// The number of objects of the to-many `keyPath` that pass `predicate`, whose key paths
    /// start with `variable` (`SUBQUERY(keyPath, $variable, predicate).@count`).
    /// ```swift
    /// let p = PredicateKey.subquery("notes", "$n", .key("$n.rank") > 3 && .key("$n.done") == false) > 0
    /// ```
    public static func subquery(_ keyPath: String, _ variable: String, _ predicate: ObjectPredicate) -> PredicateKey {
        PredicateKey(path: key(keyPath).path, quantifier: nil,
                     subquery: PredicateSubquery(variable: variable.hasPrefix("$") ? variable : "$" + variable, predicate: predicate.node))
    }

    /// The sum of `key` over the objects of this to-many key path (`@sum`; 0 when there are
    /// none, nils skipped).
    /// ```swift
    /// let p = ObjectPredicate.key("items").sum("price") > 100
    /// ```
    public func sum(_ key: String) -> PredicateKey { collection(.sum, key) }

    /// The average of `key` over the objects of this to-many key path (`@avg`; nil when there
    /// are none, nils skipped).
    /// ```swift
    /// let p = ObjectPredicate.key("notes").average("rank") >= 2.5
    /// ```
    public func average(_ key: String) -> PredicateKey { collection(.avg, key) }

    /// The smallest `key` of the objects of this to-many key path (`@min`; nil when there are none).
    /// ```swift
    /// let p = ObjectPredicate.key("notes").min("rank") == 0
    /// ```
    public func min(_ key: String) -> PredicateKey { collection(.min, key) }

    /// The largest `key` of the objects of this to-many key path (`@max`; nil when there are none).
    /// ```swift
    /// let p = ObjectPredicate.key("notes").max("rank") < 5
    /// ```
    public func max(_ key: String) -> PredicateKey { collection(.max, key) }

    private func collection(_ op: CollectionOperator, _ key: String) -> PredicateKey {
        PredicateKey(path: path + [op.rawValue] + Self.key(key).path, quantifier: quantifier, subquery: subquery)
    }

    private func quantified(_ q: PredicateQuantifier) -> PredicateKey { PredicateKey(path: path, quantifier: q, subquery: subquery) }

    private func compare(_ op: PredicateOperator, _ value: PredicateOperand, _ options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        ObjectPredicate(node: .comparison(PredicateComparison(quantifier: quantifier, keyPath: path, op: op, options: options, value: value, subquery: subquery)))
    }

    private static func value(_ v: (any PredicateArgumentConvertible)?) -> PropertyValue { v?.predicateArgument ?? .null }

    /// `self op other`, where `other` is another key path of the object or a variable (a
    /// variable on the left is mirrored to the right).
    private func compare(_ op: PredicateOperator, _ other: PredicateKey, _ options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        if isVariable && !other.isVariable, let mirrored = op.mirrored { return other.compare(mirrored, self, options) }
        let value: PredicateOperand = other.isVariable ? .variable(String(other.path[0].dropFirst())) : .keyPath(other.path)
        return compare(op, value, options)
    }

    /// Equal to another key path of the object, or to a variable (nil equals nil); `options`
    /// apply to strings.
    /// ```swift
    /// let p = PredicateKey.key("title").equals(.key("folder.name"), options: .caseInsensitive)
    /// ```
    public func equals(_ other: PredicateKey, options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        compare(.equalTo, other, options)
    }

    /// Not equal to another key path of the object, or to a variable.
    /// ```swift
    /// let p = PredicateKey.key("folder").notEquals(.key("detail.item.folder"))
    /// ```
    public func notEquals(_ other: PredicateKey, options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        compare(.notEqualTo, other, options)
    }

    /// Less than another key path of the object, or a variable (false when either is nil).
    /// ```swift
    /// let p = PredicateKey.key("start") < .key("end")
    /// ```
    public static func < (key: PredicateKey, other: PredicateKey) -> ObjectPredicate { key.compare(.lessThan, other) }

    /// Less than or equal to another key path of the object, or a variable.
    /// ```swift
    /// let p = PredicateKey.key("rank") <= .key("group.rank")
    /// ```
    public static func <= (key: PredicateKey, other: PredicateKey) -> ObjectPredicate { key.compare(.lessThanOrEqualTo, other) }

    /// Greater than another key path of the object, or a variable.
    /// ```swift
    /// let p = PredicateKey.key("rating") > .key("tags.@count")
    /// ```
    public static func > (key: PredicateKey, other: PredicateKey) -> ObjectPredicate { key.compare(.greaterThan, other) }

    /// Greater than or equal to another key path of the object, or a variable.
    /// ```swift
    /// let p = PredicateKey.key("created") >= .variable("since")
    /// ```
    public static func >= (key: PredicateKey, other: PredicateKey) -> ObjectPredicate { key.compare(.greaterThanOrEqualTo, other) }

    /// Equal to `value`; `nil` is a value (`== nil` finds nils).
    /// ```swift
    /// let p = PredicateKey.key("folder") == nil
    /// ```
    public static func == (key: PredicateKey, value: (any PredicateArgumentConvertible)?) -> ObjectPredicate {
        key.compare(.equalTo, .single(Self.value(value)))
    }

    /// Not equal to `value` (nil is a value).
    /// ```swift
    /// let p = PredicateKey.key("title") != "Untitled"
    /// ```
    public static func != (key: PredicateKey, value: (any PredicateArgumentConvertible)?) -> ObjectPredicate {
        key.compare(.notEqualTo, .single(Self.value(value)))
    }

    /// Less than `value` (false when either is nil).
    /// ```swift
    /// let p = PredicateKey.key("rating") < 3
    /// ```
    public static func < (key: PredicateKey, value: any PredicateArgumentConvertible) -> ObjectPredicate {
        key.compare(.lessThan, .single(value.predicateArgument))
    }

    /// Less than or equal to `value` (false when either is nil).
    /// ```swift
    /// let p = PredicateKey.key("rating") <= 3
    /// ```
    public static func <= (key: PredicateKey, value: any PredicateArgumentConvertible) -> ObjectPredicate {
        key.compare(.lessThanOrEqualTo, .single(value.predicateArgument))
    }

    /// Greater than `value` (false when either is nil).
    /// ```swift
    /// let p = PredicateKey.key("created") > Date(timeIntervalSince1970: 0)
    /// ```
    public static func > (key: PredicateKey, value: any PredicateArgumentConvertible) -> ObjectPredicate {
        key.compare(.greaterThan, .single(value.predicateArgument))
    }

    /// Greater than or equal to `value` (false when either is nil).
    /// ```swift
    /// let p = PredicateKey.key("rating") >= 3
    /// ```
    public static func >= (key: PredicateKey, value: any PredicateArgumentConvertible) -> ObjectPredicate {
        key.compare(.greaterThanOrEqualTo, .single(value.predicateArgument))
    }

    /// Equal to the string `value` under `options` (`==[c]`, `==[cd]`).
    /// ```swift
    /// let p = PredicateKey.key("name").equals("inbox", options: .caseInsensitive)
    /// ```
    public func equals(_ value: String, options: ObjectPredicate.StringOptions) -> ObjectPredicate {
        compare(.equalTo, .single(.string(value)), options)
    }

    /// Between `low` and `high`, both included (`BETWEEN {low, high}`).
    /// ```swift
    /// let p = PredicateKey.key("rating").between(2, 4)
    /// ```
    public func between(_ low: any PredicateArgumentConvertible, _ high: any PredicateArgumentConvertible) -> ObjectPredicate {
        compare(.between, .list([low.predicateArgument, high.predicateArgument]))
    }

    /// Equal to one of `values` (`IN {…}`); string options apply to strings.
    /// ```swift
    /// let p = PredicateKey.key("status").isIn(["open", "new"])
    /// ```
    public func isIn(_ values: [any PredicateArgumentConvertible], options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        compare(.in, .list(values.map(\.predicateArgument)), options)
    }

    /// Starts with `prefix` (`BEGINSWITH`).
    /// ```swift
    /// let p = PredicateKey.key("title").beginsWith("he", options: .caseInsensitive)
    /// ```
    public func beginsWith(_ prefix: String, options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        compare(.beginsWith, .single(.string(prefix)), options)
    }

    /// Ends with `suffix` (`ENDSWITH`).
    /// ```swift
    /// let p = PredicateKey.key("file").endsWith(".swift")
    /// ```
    public func endsWith(_ suffix: String, options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        compare(.endsWith, .single(.string(suffix)), options)
    }

    /// Contains `text` (`CONTAINS`).
    /// ```swift
    /// let p = PredicateKey.key("body").contains("é", options: [.caseInsensitive, .diacriticInsensitive])
    /// ```
    public func contains(_ text: String, options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        compare(.contains, .single(.string(text)), options)
    }

    /// Matches the wildcard `pattern`: `*` any run, `?` one character (`LIKE`).
    /// ```swift
    /// let p = PredicateKey.key("code").like("A?-*")
    /// ```
    public func like(_ pattern: String, options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        compare(.like, .single(.string(pattern)), options)
    }

    /// Matches the regular expression `pattern` as a whole (`MATCHES`; `[c]` only).
    /// ```swift
    /// let p = PredicateKey.key("zip").matches("[0-9]{5}")
    /// ```
    public func matches(_ pattern: String, options: ObjectPredicate.StringOptions = []) -> ObjectPredicate {
        compare(.matches, .single(.string(pattern)), options)
    }
}

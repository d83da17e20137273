/// One key of a fetch's order: a key path (through to-one relationships), a direction and a
/// way of comparing strings.
///
/// SQL and in-memory sorting order identically: nil first when ascending (as SQLite),
/// numbers numerically, strings by their UTF-8 bytes (`.default`), by their case-folded
/// bytes (`.caseInsensitive`), or by `localizedStandardCompare` (`.localized`).
/// ```swift
/// let order = [SortKey("folder.name"), SortKey("created", ascending: false),
///              SortKey("title", comparison: .localized)]
/// ```
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    /// How strings compare (other values always compare naturally).
    /// ```swift
    /// let key = SortKey("title", comparison: .caseInsensitive)
    /// ```
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        /// By UTF-8 bytes, as SQLite's BINARY collation ("B" < "a" < "É").
        case `default`
        /// By UTF-8 bytes after case folding (the `[c]` fold of predicates).
        case caseInsensitive
        /// As Finder sorts: `localizedStandardCompare` (case-insensitive, numbers by value).
        case localized
    }

    /// The key path, e.g. `"title"` or `"folder.name"`.
    public var keyPath: String
    /// Smallest first when true.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: Comparison

    /// Creates a sort key.
    /// ```swift
    /// let newestFirst = SortKey("created", ascending: false)
    /// ```
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .default) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// The same key, in the opposite direction.
    /// ```swift
    /// let oldestFirst = SortKey("created", ascending: false).reversed
    /// ```
    public var reversed: SortKey { SortKey(keyPath, ascending: !ascending, comparison: comparison) }

    /// The key in words, e.g. `created descending`.
    /// ```swift
    /// print(SortKey("title", comparison: .localized))  // title ascending (localized)
    /// ```
    public var description: String {
        "\(keyPath) \(ascending ? "ascending" : "descending")\(comparison == .default ? "" : " (\(comparison.rawValue))")"
    }

    /// Resolves the key path against `entity`; throws `.invalidRequest` naming the key for an
    /// unknown key, an attribute followed by more keys, or a to-many relationship.
    func compiled(for entity: EntityDescription, in model: ObjectModel) throws(StrataError) -> CompiledSortKey {
        let segments = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var steps: [ResolvedKeyPath.Step] = []
        var current = entity
        var terminal: ResolvedKeyPath.Terminal?
        var index = 0
        while index < segments.count {
            let key = segments[index]
            let isLast = index == segments.count - 1
            func failure(_ message: String) -> StrataError {
                StrataError(.invalidRequest, "Cannot sort \(entity.name) by \(keyPath): \(message)", entity: entity.name, key: keyPath)
            }
            switch current.propertyIndex[key] {
            case .attribute(let a)?:
                guard isLast else { throw failure("\(current.name).\(key) is an attribute, not a relationship.") }
                guard current.attributes[a].type != .transformable else { throw failure("transformable attributes have no order.") }
                terminal = .attribute(a)
            case .relationship(let r)?:
                let relationship = current.relationships[r]
                if relationship.isToMany {
                    guard index == segments.count - 2, segments[index + 1] == "@count" else {
                        throw failure("\(current.name).\(key) is to-many; only its @count can be sorted by.")
                    }
                    terminal = .count(r)
                    index += 1
                } else if isLast {
                    terminal = .toOneID(r)
                } else {
                    let destination = model.entities[relationship.destinationIndex]
                    steps.append(.init(relationshipIndex: r, source: current, destination: destination))
                    current = destination
                }
            case nil:
                throw failure("\(current.name) has no key \"\(key)\".")
            }
            index += 1
        }
        guard let terminal else {
            throw StrataError(.invalidRequest, "Cannot sort \(entity.name) by \(keyPath).", entity: entity.name, key: keyPath)
        }
        return CompiledSortKey(keyPath: ResolvedKeyPath(steps: steps, endEntity: current, terminal: terminal),
                               ascending: ascending, comparison: comparison)
    }
}

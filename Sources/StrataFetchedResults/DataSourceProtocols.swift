public import Strata

/// A model type with a default order, for generic list code.
///
/// For example:
/// ```swift
/// extension Item: Sortable {
///     static var defaultSortKeys: [SortKey] { [SortKey("category"), SortKey("name", comparison: .localized)] }
/// }
/// ```
public protocol Sortable: ManagedObject {
    /// The order lists of this type use; at least one key.
    static var defaultSortKeys: [SortKey] { get }
}

/// A model type whose lists are grouped into sections.
///
/// For example:
/// ```swift
/// extension Item: Groupable { static var sectionKeyPath: String { "category" } }
/// ```
public protocol Groupable: Sortable {
    /// The key path sections are made of; it must be the key path of the first default sort key.
    static var sectionKeyPath: String { get }
}

/// A model type that can be searched by text.
///
/// For example:
/// ```swift
/// extension Item: TextSearchable {
///     static func searchPredicate(for term: String?) -> ObjectPredicate? {
///         guard let term, !term.isEmpty else { return nil }
///         return ObjectPredicate.key("name").contains(term, options: [.caseInsensitive, .diacriticInsensitive])
///     }
/// }
/// ```
///
/// When the searched attributes are searchable (`@Attribute("name", .searchable)`), name them
/// in ``searchableKeys``: ``FetchedDataSource`` then searches with the full-text index
/// (`TextSearch.words(_:in:)`: every word of the term, the last one as a
/// prefix) instead of ``searchPredicate(for:)``:
/// ```swift
/// extension Note: TextSearchable {
///     static func searchPredicate(for term: String?) -> ObjectPredicate? { nil }
///     static var searchableKeys: [String] { ["title", "body"] }
/// }
/// ```
public protocol TextSearchable: ManagedObject {
    /// The filter for a search term; nil (for a nil or empty term) means every object.
    static func searchPredicate(for term: String?) -> ObjectPredicate?
    /// Searchable attributes to search with the full-text index; empty (the default) means the
    /// search uses ``searchPredicate(for:)``.
    static var searchableKeys: [String] { get }
}

extension TextSearchable {
    /// No full-text search by default: ``searchPredicate(for:)`` filters.
    ///
    /// For example:
    /// ```swift
    /// static var searchableKeys: [String] { ["body"] }
    /// ```
    public static var searchableKeys: [String] { [] }
}

/// A model type whose lists can be constrained by a related object (e.g. the items of one list).
///
/// For example:
/// ```swift
/// extension Item: RelationshipFilterable {
///     static func relationshipFilterPredicate(for constraint: ManagedObject?) -> ObjectPredicate? {
///         constraint.map { ObjectPredicate.key("list") == $0 }
///     }
/// }
/// ```
public protocol RelationshipFilterable: ManagedObject {
    /// The filter for a constraining object; nil means no constraint.
    static func relationshipFilterPredicate(for constraint: ManagedObject?) -> ObjectPredicate?
}

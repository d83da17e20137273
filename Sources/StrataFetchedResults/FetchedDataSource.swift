public import Strata

/// A generic list of `Object` for any UI: it builds its request from the type's protocols —
/// ``Sortable`` for the order, ``Groupable`` for sections (when `grouped`), ``TextSearchable``
/// for ``searchTerm``, ``RelationshipFilterable`` for ``constraint`` — keeps it up to date
/// through a ``FetchedResultsController``, and reports the difference when the search term
/// or the constraint changes. It lives on its context's queue, like the controller.
///
/// For example:
/// ```swift
/// let items = try FetchedDataSource<Item>(context: main)
/// items.controller.delegate = tableAdapter
/// let changes = try items.setSearchTerm("milk")     // also sent to the delegate
/// print(items.controller.sections.map(\.name), changes.rows.count)
/// ```
public final class FetchedDataSource<Object: Sortable> {
    /// The controller holding the results.
    public let controller: FetchedResultsController<Object>
    /// A filter always applied (ANDed with the search and constraint filters).
    public let basePredicate: ObjectPredicate?
    /// The current search term (nil: no search). Change it with ``setSearchTerm(_:)``.
    public private(set) var searchTerm: String?
    /// The current constraining object (nil: none). Change it with ``setConstraint(_:)``.
    public private(set) var constraint: ManagedObject?

    /// Creates the data source and fetches. Sections are used when `Object` is ``Groupable``
    /// and `grouped` is true.
    ///
    /// - Throws: ``FetchedResultsError`` or Strata's errors for a request that does not fit the model.
    public init(context: ObjectContext, basePredicate: ObjectPredicate? = nil, grouped: Bool = true,
                searchTerm: String? = nil, constraint: ManagedObject? = nil, fetchBatchSize: Int = 0) throws {
        self.basePredicate = basePredicate
        self.searchTerm = searchTerm
        self.constraint = constraint
        let sectionKeyPath = grouped ? (Object.self as? any Groupable.Type)?.sectionKeyPath : nil
        var request = Self.request(base: basePredicate, searchTerm: searchTerm, constraint: constraint)
        request.fetchBatchSize = fetchBatchSize
        controller = try FetchedResultsController(fetchRequest: request, context: context, sectionKeyPath: sectionKeyPath)
        try controller.performFetch()
    }

    /// The request for a search term and constraint: the type's default order and the filters
    /// ANDed; a full-text search of the term when the type names ``TextSearchable/searchableKeys``
    /// (a list that then refetches on every change of its entity, and sees saved text only).
    ///
    /// For example:
    /// ```swift
    /// let request = FetchedDataSource<Item>.request(base: nil, searchTerm: "milk", constraint: nil)
    /// ```
    public static func request(base: ObjectPredicate?, searchTerm: String?, constraint: ManagedObject?) -> FetchRequest<Object> {
        var parts: [ObjectPredicate] = []
        var textSearch: TextSearch?
        if let base { parts.append(base) }
        if let searchable = Object.self as? any TextSearchable.Type {
            let keys = searchable.searchableKeys
            if keys.isEmpty {
                if let search = searchable.searchPredicate(for: searchTerm) { parts.append(search) }
            } else if let searchTerm, !searchTerm.allSatisfy(\.isWhitespace) {
                textSearch = .words(searchTerm, in: keys)
                textSearch?.ordersByRelevance = false   // the controller keeps the sort keys' order
            }
        }
        if let filter = (Object.self as? any RelationshipFilterable.Type)?.relationshipFilterPredicate(for: constraint) { parts.append(filter) }
        let predicate: ObjectPredicate? = parts.isEmpty ? nil : (parts.count == 1 ? parts[0] : .and(parts))
        var request = FetchRequest<Object>(predicate: predicate, sortKeys: Object.defaultSortKeys)
        request.textSearch = textSearch
        return request
    }

    /// Searches for `term` (nil or empty: everything): refetches and reports the difference to
    /// the controller's delegate, and returns it. A no-op for a type that is not ``TextSearchable``.
    ///
    /// For example:
    /// ```swift
    /// try items.setSearchTerm("mil")
    /// ```
    @discardableResult
    public func setSearchTerm(_ term: String?) throws -> FetchedResultsChanges {
        searchTerm = term
        return try refetch()
    }

    /// Constrains the list to `object` (nil: no constraint): refetches and reports the
    /// difference. A no-op for a type that is not ``RelationshipFilterable``.
    ///
    /// For example:
    /// ```swift
    /// try items.setConstraint(groceries)
    /// ```
    @discardableResult
    public func setConstraint(_ object: ManagedObject?) throws -> FetchedResultsChanges {
        constraint = object
        return try refetch()
    }

    private func refetch() throws -> FetchedResultsChanges {
        var request = Self.request(base: basePredicate, searchTerm: searchTerm, constraint: constraint)
        request.fetchBatchSize = controller.fetchRequest.fetchBatchSize
        return try controller.refetch(with: request)
    }
}

/// Describes what to fetch: an entity, a filter, an order, and how much to read.
///
/// For example:
/// ```swift
/// var request = FetchRequest<Note>(
///     predicate: try ObjectPredicate("title BEGINSWITH[c] %@", "he"),
///     sortKeys: [SortKey("created", ascending: false)])
/// request.fetchBatchSize = 50
/// let notes = try context.fetch(request)
/// ```
public struct FetchRequest<Result: ManagedObject>: Sendable {
    /// The entity to fetch; `nil` means the entity of `Result` (required for `ManagedObject` itself).
    public var entityName: String?
    /// Which objects match; `nil` matches all.
    public var predicate: ObjectPredicate?
    /// The order; ties are broken by primary key so results are stable.
    public var sortKeys: [SortKey]
    /// At most this many results (0 for no limit).
    public var fetchLimit = 0
    /// Skip this many results first.
    public var fetchOffset = 0
    /// When positive, only IDs are read up front and rows are read a page of this size at a
    /// time, when an object of the page is first touched. Honoured in every context.
    public var fetchBatchSize = 0
    /// For dictionary results: the keys to read (attributes, or to-one relationships as IDs),
    /// and key paths through to-ones (`folder.name`, `folder.owner`), each under its key path.
    ///
    /// For example:
    /// ```swift
    /// request.propertiesToFetch = ["title", "folder.name"]   // [["title": …, "folder.name": …]]
    /// ```
    public var propertiesToFetch: [String]?
    /// For dictionary results: aggregate columns (`count`, `sum`, `min`, `max`, `average` of a
    /// key), each under its name. Without ``propertiesToGroupBy``, ``propertiesToFetch`` must
    /// be empty (or nil) and the result is one row.
    ///
    /// For example:
    /// ```swift
    /// request.expressionsToFetch = [.sum("rating", as: "total")]
    /// ```
    public var expressionsToFetch: [ExpressionDescription] = []
    /// For dictionary results: the keys (attributes, to-one relationships, key paths through
    /// to-ones such as `folder.name`) whose equal values form one row. ``propertiesToFetch``
    /// (nil means these keys) may name only these keys; ``expressionsToFetch`` are computed per
    /// group. A key path through a to-many is refused with `.invalidRequest`.
    ///
    /// For example:
    /// ```swift
    /// request.propertiesToGroupBy = ["folder"]
    /// request.propertiesToGroupBy = ["folder.owner.name"]   // one row per owner name
    /// ```
    public var propertiesToGroupBy: [String] = []
    /// For grouped dictionary results: which groups to keep. Its keys are the grouped keys
    /// (key paths included, and key paths on through a grouped to-one) and the names of
    /// ``expressionsToFetch`` (SQL `HAVING`); ``predicate`` filters rows before grouping.
    ///
    /// For example:
    /// ```swift
    /// request.havingPredicate = try ObjectPredicate("total > 10")
    /// ```
    public var havingPredicate: ObjectPredicate?
    /// For dictionary results: leave out rows equal to an earlier one (SQL `SELECT DISTINCT`).
    ///
    /// For example:
    /// ```swift
    /// request.propertiesToFetch = ["rating"]
    /// request.returnsDistinctResults = true
    /// ```
    public var returnsDistinctResults = false
    /// Relationships to read along with the results, in one query each (e.g. `["folder", "tags"]`,
    /// or `"folder.storageOwner"` through several levels), so touching them fires no more faults.
    public var relationshipKeyPathsForPrefetching: [String] = []
    /// A full-text search over the entity's searchable attributes (see ``TextSearch``): only
    /// matching objects are fetched, ``predicate`` still applies to them, and the most
    /// relevant come first unless the search says otherwise (the sort keys then break ties).
    ///
    /// A text search reads the store, like ``ObjectContext/fetchDictionaries(_:)``: the
    /// context's unsaved inserts, updates and deletes are not searched, whatever
    /// ``includesPendingChanges`` says (save first to search them). Objects come back as the
    /// context holds them, with any unsaved values.
    ///
    /// For example:
    /// ```swift
    /// var request = FetchRequest<Note>(predicate: try ObjectPredicate("isArchived == NO"))
    /// request.textSearch = .words("strict conc")
    /// request.fetchLimit = 50
    /// let notes = try context.fetch(request)
    /// ```
    public var textSearch: TextSearch?
    /// Whether unsaved inserts, updates and deletes of the context count (the default, as in Core Data).
    public var includesPendingChanges = true
    /// When `true`, results are faults (their rows are read on first touch, a batch at a time).
    public var returnsObjectsAsFaults = false
    /// When `true`, objects the context already holds with values take the store's current
    /// values (unsaved edits of a key are kept, as `refresh(_:mergeChanges: true)` keeps them);
    /// by default they keep the values they have, as in Core Data. Costs one more read of the
    /// rows of those objects.
    ///
    /// For example:
    /// ```swift
    /// var request = FetchRequest<Note>()
    /// request.shouldRefreshRefetchedObjects = true   // another process may have written
    /// ```
    public var shouldRefreshRefetchedObjects = false

    /// Creates a request for `Result`'s entity (or `entityName`).
    public init(entityName: String? = nil, predicate: ObjectPredicate? = nil, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
    }
}

/// Rows to write straight to the store, without managed objects: the fastest import path.
///
/// Values are given per key; missing keys get the attribute's default. To-one relationships
/// take `.objectID` values (of saved objects). Contexts are not changed: fetch (or merge
/// the returned IDs) to see the rows.
///
/// For example:
/// ```swift
/// let request = BatchInsertRequest(entityName: "Note", keys: ["title", "rating"],
///                                  rows: [[.string("A"), .integer(1)], [.string("B"), .integer(2)]])
/// let ids = try context.execute(request)
/// ```
///
/// For a large import, let a handler write each row as the store asks for it (Core Data's
/// `dictionaryHandler`): no array of every row is built first, so memory stays flat and the
/// import does a third less work per row.
public struct BatchInsertRequest: Sendable {
    /// Writes row `index` into `values` (one value per key, in the order of `keys`; the array
    /// arrives holding the previous row's values, or nils for the first).
    public typealias RowHandler = @Sendable (_ index: Int, _ values: inout [PropertyValue]) throws -> Void

    /// The entity of the rows.
    public var entityName: String
    /// The keys (attributes or to-one relationships) that `rows` give values for, in order.
    public var keys: [String]
    /// One array of values per row, in the order of `keys` (empty for a request whose rows a
    /// handler writes).
    public var rows: [[PropertyValue]]
    /// The rows a handler writes, when the request was made with one.
    let handler: (count: Int, write: RowHandler)?

    /// Creates a request from columns of values.
    public init(entityName: String, keys: [String], rows: [[PropertyValue]]) {
        self.entityName = entityName
        self.keys = keys
        self.rows = rows
        self.handler = nil
    }

    /// Creates a request from one dictionary per row (keys absent from a row are nil).
    public init(entityName: String, objects: [[String: PropertyValue]]) {
        let keys = Array(Set(objects.flatMap(\.keys))).sorted()
        self.init(entityName: entityName, keys: keys, rows: objects.map { row in keys.map { row[$0] ?? .null } })
    }

    /// Creates a request for `count` rows that `handler` writes one at a time, while the
    /// insert runs (on the store's writer queue: keep it quick and free of context work).
    /// An error the handler throws stops the insert with nothing written; a `StrataError`
    /// is passed on as it is, any other error as `.invalidRequest` with it as the cause.
    ///
    /// For example:
    /// ```swift
    /// let request = BatchInsertRequest(entityName: "Note", keys: ["title", "rating"], count: titles.count) { i, values in
    ///     values[0] = .string(titles[i])
    ///     values[1] = .integer(Int64(i))
    /// }
    /// let ids = try context.execute(request)
    /// ```
    public init(entityName: String, keys: [String], count: Int, handler: @escaping RowHandler) {
        self.entityName = entityName
        self.keys = keys
        self.rows = []
        self.handler = (max(0, count), handler)
    }

    /// How many rows the request inserts.
    public var rowCount: Int { handler?.count ?? rows.count }
}

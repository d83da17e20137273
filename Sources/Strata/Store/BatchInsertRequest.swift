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
public struct BatchInsertRequest: Sendable {
    /// The entity of the rows.
    public var entityName: String
    /// The keys (attributes or to-one relationships) that `rows` give values for, in order.
    public var keys: [String]
    /// One array of values per row, in the order of `keys`.
    public var rows: [[PropertyValue]]

    /// Creates a request from columns of values.
    public init(entityName: String, keys: [String], rows: [[PropertyValue]]) {
        self.entityName = entityName
        self.keys = keys
        self.rows = rows
    }

    /// Creates a request from one dictionary per row (keys absent from a row are nil).
    public init(entityName: String, objects: [[String: PropertyValue]]) {
        let keys = Array(Set(objects.flatMap(\.keys))).sorted()
        self.init(entityName: entityName, keys: keys, rows: objects.map { row in keys.map { row[$0] ?? .null } })
    }
}

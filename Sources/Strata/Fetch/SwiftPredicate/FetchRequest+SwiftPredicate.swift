public import Foundation

extension FetchRequest {
    /// A request written as SwiftData's `FetchDescriptor` is: a Swift `#Predicate` and
    /// `SortDescriptor`s, translated at once to an ``ObjectPredicate`` and ``SortKey``s (the
    /// same SQL as the format syntax).
    ///
    /// Throws ``StrataError`` with code ``StrataError/Code/unsupportedPredicate`` naming what
    /// cannot be translated (see docs/predicates.md).
    /// ```swift
    /// let request = try FetchRequest<Note>(
    ///     predicate: #Predicate { $0.rating > 3 && $0.title.contains("x") },
    ///     sortBy: [SortDescriptor(\.title)])
    /// let notes = try context.fetch(request)
    /// ```
    public init(predicate: Predicate<Result>, sortBy: [SortDescriptor<Result>] = []) throws(StrataError) {
        self.init(predicate: try ObjectPredicate(predicate), sortKeys: try Self.sortKeys(sortBy))
    }

    /// A request for every object of `Result`'s entity, in the order of `sortBy`.
    ///
    /// Throws ``StrataError`` with code ``StrataError/Code/unsupportedPredicate`` for a
    /// descriptor that cannot be translated.
    /// ```swift
    /// let request = try FetchRequest<Note>(sortBy: [SortDescriptor(\.created, order: .reverse)])
    /// ```
    public init(sortBy: [SortDescriptor<Result>]) throws(StrataError) {
        self.init(sortKeys: try Self.sortKeys(sortBy))
    }

    private static func sortKeys(_ descriptors: [SortDescriptor<Result>]) throws(StrataError) -> [SortKey] {
        var keys: [SortKey] = []
        for descriptor in descriptors { keys.append(try SortKey(descriptor)) }
        return keys
    }
}

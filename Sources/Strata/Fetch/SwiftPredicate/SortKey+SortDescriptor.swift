public import Foundation

extension SortKey {
    /// The sort key of a Foundation `SortDescriptor` on a key path of a managed object class,
    /// as SwiftData users write them: `SortDescriptor(\.title)`,
    /// `SortDescriptor(\.created, order: .reverse)`, `SortDescriptor(\.folder?.name)`.
    ///
    /// Strings compare as ``Comparison/default`` (by their UTF-8 bytes, which is Swift's `<`
    /// for strings in normal form C): on Linux, Foundation's `SortDescriptor` has no string
    /// comparators but `.lexical`; for `localizedStandardCompare` use
    /// `SortKey(\Note.title, comparison: .localized)`. Throws ``StrataError`` with code
    /// ``StrataError/Code/unsupportedPredicate`` for a descriptor without a key path or a key
    /// path that is not a modelled property.
    /// ```swift
    /// let key = try SortKey(SortDescriptor(\Note.created, order: .reverse))  // created descending
    /// ```
    public init<Root: ManagedObject>(_ descriptor: SortDescriptor<Root>) throws(StrataError) {
        guard let keyPath = descriptor.keyPath else {
            throw StrataError(.unsupportedPredicate, "A SortDescriptor on \(Root.self) without a key path cannot be translated to a SortKey.",
                              entity: Root.entityName)
        }
        if let comparator = descriptor.stringComparator, comparator != .lexical {
            throw StrataError(.unsupportedPredicate, "The string comparator \(comparator) of a SortDescriptor on \(Root.self) has no SortKey equivalent; use .lexical, or a SortKey with its comparison.",
                              entity: Root.entityName)
        }
        try self.init(keyPath, ascending: descriptor.order == .forward)
    }

    /// The sort key of a Swift key path of a managed object class (`\Note.title`,
    /// `\Note.folder?.name`, `\Folder.notes.count`).
    ///
    /// Throws ``StrataError`` with code ``StrataError/Code/unsupportedPredicate`` when the key
    /// path is not a modelled property.
    /// ```swift
    /// let key = try SortKey(\Note.title, comparison: .localized)
    /// ```
    public init<Root: ManagedObject>(_ keyPath: PartialKeyPath<Root>, ascending: Bool = true, comparison: Comparison = .default) throws(StrataError) {
        let model = try KeyPathProbe.modelKeyPath(keyPath, root: Root.self)
        self.init(model.keys.joined(separator: "."), ascending: ascending, comparison: comparison)
    }
}

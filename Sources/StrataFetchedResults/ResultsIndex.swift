import Strata

/// Counts of the work a controller did, for tests and diagnostics: a change report's cost is
/// measured in comparisons and evaluations, not time.
///
/// For example:
/// ```swift
/// let before = controller.statistics.comparisons
/// try context.save()
/// print(controller.statistics.comparisons - before)   // ~2·log2(n) for one update
/// ```
public struct FetchedResultsStatistics: Hashable, Sendable {
    /// Sort-value comparisons (each compares up to every sort key, then IDs).
    public var comparisons = 0
    /// Predicate evaluations of changed objects.
    public var evaluations = 0
    /// Times an object's sort values were read from the object.
    public var sortValueReads = 0
    /// Rows found by a linear scan (only for never-read faults of a batched fetch).
    public var linearScans = 0
    /// Change sets a `fetchLimit` controller took in from memory, deciding its window itself.
    public var windowBatchesInMemory = 0
    /// Change sets after which a `fetchLimit`/`fetchOffset` controller fetched its window again
    /// (it could not decide the window from memory: a gap, an offset, sections, many unread rows).
    public var windowRefetches = 0
}

/// The ordered in-memory results: sections sorted by the first sort key — the section key,
/// which the controller sorts first (see `FetchedResultsController.indexedRequest`) — then name, each
/// holding entries sorted by all sort keys then ID. Every lookup is a binary search.
final class ResultsIndex {
    struct Entry {
        /// The object; `nil` for a result placed from a merged save's values that nothing has
        /// read yet (its ID, `id`, is permanent: the controller makes the object when asked).
        var object: ManagedObject?
        /// The ID the entry was sorted with (the tie-break).
        var id: ObjectID
        /// The sort values the entry was sorted with; nil for a fault never read (batched fetch).
        var values: [PropertyValue]?
    }

    final class Section {
        let name: String
        /// The first sort key's value of the section's objects, the section key (nil when unsectioned).
        let key: PropertyValue
        // Unchecked like the index's state below.
        @exclusivity(unchecked) var entries: [Entry] = []
        init(name: String, key: PropertyValue) {
            self.name = name
            self.key = key
        }
    }

    let evaluator: FetchEvaluator
    /// The controller's context, which makes the objects of results placed without one.
    let context: ObjectContext
    /// The keys the request reads (`FetchEvaluator.readKeys`), as a list: there are a few, and
    /// comparing a changed key with each costs less than hashing it (a change set names one
    /// key of each of thousands of objects).
    let readKeys: [String]
    let isSectioned: Bool
    /// Under one sort key, its direction (`true`: ascending), for searches that compare integer
    /// values in place; `nil` under several keys.
    private let onlyKeyAscending: Bool?
    // `@exclusivity(unchecked)`, as the controller's state: one queue, no user code inside an access.
    @exclusivity(unchecked) var sections: [Section] = []
    @exclusivity(unchecked) var statistics = FetchedResultsStatistics()

    init(evaluator: FetchEvaluator, context: ObjectContext, isSectioned: Bool) {
        self.evaluator = evaluator
        self.context = context
        self.readKeys = Array(evaluator.readKeys)
        self.isSectioned = isSectioned
        // The key's direction, read from how it orders 0 and 1 (integers compare naturally).
        self.onlyKeyAscending = evaluator.sortKeyCount == 1 ? evaluator.compareValue(.integer(0), .integer(1), key: 0) < 0 : nil
        if !isSectioned { sections = [Section(name: "", key: .null)] }
    }

    /// The object of `entry`: the one it holds, or (a result placed from a merged save's values
    /// that nothing has read) the context's object for its ID, made now as a fault.
    func object(of entry: Entry) -> ManagedObject {
        entry.object ?? context.object(with: entry.id)
    }

    /// How many rows' objects the controller's `object(at:in:)` makes at once: about a screen
    /// of a list.
    static let objectPage = 64

    /// The sort values of `object` now (counted).
    func currentValues(of object: ManagedObject) -> [PropertyValue] {
        statistics.sortValueReads += 1
        return evaluator.sortValues(of: object)
    }

    /// The values of entry `row` of `section`, read and cached if it was never read.
    func values(at row: Int, in section: Section) -> [PropertyValue] {
        if let values = section.entries[row].values { return values }
        let values = currentValues(of: object(of: section.entries[row]))
        section.entries[row].values = values
        return values
    }

    /// Rebuilds the index from objects in fetch order.
    func load(_ objects: [ManagedObject], readValues: Bool) {
        sections = isSectioned ? [] : [Section(name: "", key: .null)]
        for object in objects {
            let values: [PropertyValue]? = (readValues || !object.isFault) ? currentValues(of: object) : nil
            let entry = Entry(object: object, id: object.objectID, values: values)
            if isSectioned, let values {
                let name = sectionName(for: values[0])
                if sections.last?.name != name { sections.append(Section(name: name, key: values[0])) }
            }
            sections[sections.count - 1].entries.append(entry)
        }
    }

    /// Compares a section key and name with a section's (counted).
    private func compareSection(_ key: PropertyValue, _ name: String, _ section: Section) -> Int {
        statistics.comparisons += 1
        let order = evaluator.compareValue(key, section.key, key: 0)
        if order != 0 { return order }
        if name == section.name { return 0 }
        return name.utf8.lexicographicallyPrecedes(section.name.utf8) ? -1 : 1
    }

    /// The index of the section for `values` (found), or where it would be inserted.
    func sectionIndex(for values: [PropertyValue]) -> (index: Int, found: Bool) {
        guard isSectioned else { return (0, true) }
        let key = values[0]
        let name = sectionName(for: key)
        var low = 0, high = sections.count
        while low < high {
            let mid = (low + high) / 2
            let order = compareSection(key, name, sections[mid])
            if order == 0 { return (mid, true) }
            if order > 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    /// The row of (`values`, `id`) in `section` (found), or where it would be inserted.
    func row(for values: [PropertyValue], id: ObjectID, in section: Section) -> (index: Int, found: Bool) {
        if let ascending = onlyKeyAscending, case .integer(let value)? = values.first,
           let found = integerRow(for: value, ascending: ascending, id: id, in: section) {
            return found
        }
        var low = 0, high = section.entries.count
        while low < high {
            let mid = (low + high) / 2
            statistics.comparisons += 1
            let order = evaluator.compare(values, id, self.values(at: mid, in: section), section.entries[mid].id)
            if order == 0 { return (mid, true) }
            if order > 0 { low = mid + 1 } else { high = mid }
        }
        return (low, false)
    }

    /// ``row(for:id:in:)`` under one integer sort key (a position, an index: the common list
    /// order), comparing the entries' values where they are, as `FetchEvaluator.compare`
    /// would; `nil` when an entry on the way holds no integer or was never read.
    private func integerRow(for value: Int64, ascending: Bool, id: ObjectID, in section: Section) -> (index: Int, found: Bool)? {
        var comparisons = 0
        let found = section.entries.withUnsafeBufferPointer { entries -> (index: Int, found: Bool)? in
            var low = 0, high = entries.count
            while low < high {
                let mid = (low + high) / 2
                guard case .integer(let other)? = entries[mid].values?.first else { return nil }
                comparisons += 1
                var order = value < other ? -1 : (value == other ? 0 : 1)
                if !ascending { order = -order }
                if order == 0 { order = FetchEvaluator.compareIDs(id, entries[mid].id) }
                if order == 0 { return (mid, true) }
                if order > 0 { low = mid + 1 } else { high = mid }
            }
            return (low, false)
        }
        if found != nil { statistics.comparisons += comparisons }   // (a search given up is counted by the general one)
        return found
    }

    /// Where `object` (sorted with `values` and `id`) is: by binary search, or by a linear
    /// scan when `values` is nil (a never-read fault) or the search misses.
    func locate(_ object: ManagedObject?, values: [PropertyValue]?, id: ObjectID) -> FetchedIndexPath? {
        if let values {
            let (s, sectionFound) = sectionIndex(for: values)
            if sectionFound, s < sections.count {
                let (r, found) = row(for: values, id: id, in: sections[s])
                if found, Self.entry(sections[s].entries[r], is: object, id: id) { return FetchedIndexPath(section: s, row: r) }
            }
        }
        statistics.linearScans += 1
        for (s, section) in sections.enumerated() {
            if let r = section.entries.firstIndex(where: { Self.entry($0, is: object, id: id) }) { return FetchedIndexPath(section: s, row: r) }
        }
        return nil
    }

    /// ``locate(_:values:id:)``, looking first right after `previous` (the last result found,
    /// when a caller finds results in row order: an import's updates of the rows it wrote in
    /// order): one check instead of a search when the result is there.
    func locate(_ object: ManagedObject?, values: [PropertyValue], id: ObjectID, after previous: FetchedIndexPath?) -> FetchedIndexPath? {
        if let previous, previous.section < sections.count {
            let entries = sections[previous.section].entries
            let next = previous.row + 1
            if next < entries.count {
                if Self.entry(entries[next], is: object, id: id) { return FetchedIndexPath(section: previous.section, row: next) }
            } else if previous.section + 1 < sections.count, let first = sections[previous.section + 1].entries.first,
                      Self.entry(first, is: object, id: id) {
                return FetchedIndexPath(section: previous.section + 1, row: 0)
            }
        }
        return locate(object, values: values, id: id)
    }

    /// Whether `entry` is the result of `object`, sorted with `id`: by identity when both
    /// objects were made, else by the ID (a result never made is held under its own ID).
    private static func entry(_ entry: Entry, is object: ManagedObject?, id: ObjectID) -> Bool {
        if let held = entry.object, let object { return held === object }
        return entry.id == id
    }

    /// Inserts an entry at its sorted place, making its section when needed; returns where it
    /// went and whether a section was made. An entry that sorts after the section's last one
    /// (rows arriving in order, as an import appends them) costs one comparison.
    @discardableResult
    func insert(_ entry: Entry, values: [PropertyValue]) -> (path: FetchedIndexPath, madeSection: Bool) {
        let (s, found) = sectionIndex(for: values)
        var made = false
        if !found {
            sections.insert(Section(name: sectionName(for: values[0]), key: values[0]), at: s)
            made = true
        }
        let section = sections[s]
        let r: Int
        if let last = section.entries.indices.last {
            statistics.comparisons += 1
            if evaluator.compare(values, entry.id, self.values(at: last, in: section), section.entries[last].id) > 0 {
                r = section.entries.count
            } else {
                r = row(for: values, id: entry.id, in: section).index
            }
        } else {
            r = 0
        }
        if r == section.entries.count {
            section.entries.append(entry)   // (`insert(_:at:)` at the end takes a slower, general path)
        } else {
            section.entries.insert(entry, at: r)
        }
        return (FetchedIndexPath(section: s, row: r), made)
    }

    /// The current index path of an entry sorted by (`values`, `id`) after all mutations.
    func path(of object: ManagedObject?, values: [PropertyValue], id: ObjectID) -> FetchedIndexPath? {
        locate(object, values: values, id: id)
    }
}

import Foundation
import Strata
import StrataFetchedResults
import Testing

final class RowList: ManagedObject {
    @Attribute("name") var name = ""
    @Relationship("rows", inverse: "list") var rows: Set<Row>
}

final class Row: ManagedObject {
    @Attribute("group") var group = ""
    @Attribute("rank") var rank: Int64 = 0
    @Attribute("title") var title = ""
    @Attribute("visible") var visible = true
    @Attribute("position") var position: Int64 = 0
    @Relationship("list", inverse: "rows") var list: RowList?
}

extension Row: Groupable, TextSearchable, RelationshipFilterable {
    static var defaultSortKeys: [SortKey] { [SortKey("group"), SortKey("title")] }
    static var sectionKeyPath: String { "group" }
    static func searchPredicate(for term: String?) -> ObjectPredicate? {
        guard let term, !term.isEmpty else { return nil }
        return ObjectPredicate.key("title").contains(term, options: .caseInsensitive)
    }
    static func relationshipFilterPredicate(for constraint: ManagedObject?) -> ObjectPredicate? {
        constraint.map { ObjectPredicate.key("list") == $0 }
    }
}

let rowModel: ObjectModel = {
    do { return try ObjectModel(RowList.self, Row.self) }
    catch { preconditionFailure("test model: \(error)") }  // programmer error: the test model is valid
}()

/// A temporary directory removed when the value is dropped.
final class TemporaryDirectory: @unchecked Sendable {  // safe: immutable after init
    let url: URL
    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("strata-frc-tests-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(at: url) }
}

func makeCoordinator(_ directory: TemporaryDirectory) async throws -> StoreCoordinator {
    try await StoreCoordinator(model: rowModel, store: .sqlite(directory.url.appendingPathComponent("store.sqlite")))
}

/// Records every delegate call, and builds the model of the results from them alone.
final class Recorder: FetchedResultsControllerDelegate {
    typealias Object = Row
    enum Event { case will, did, section(String, Int, FetchedResultsChangeType), row(ObjectIdentifier, FetchedIndexPath?, FetchedResultsChangeType, FetchedIndexPath?) }
    var events: [Event] = []
    var batches: [FetchedResultsChanges] = []
    var calls: Int { events.count }
    /// When set, checks every batch's update reports against values read by the test.
    var audit: UpdateAudit?
    /// Prints every row report (for debugging a seed).
    var trace = false
    private var batchStart = 0

    func controllerWillChangeContent(_ controller: FetchedResultsController<Row>) {
        events.append(.will)
        batchStart = events.count
    }
    func controller(_ controller: FetchedResultsController<Row>, didChangeSection name: String, at index: Int, for type: FetchedResultsChangeType) {
        events.append(.section(name, index, type))
    }
    func controller(_ controller: FetchedResultsController<Row>, didChange object: Row, at indexPath: FetchedIndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: FetchedIndexPath?) {
        events.append(.row(ObjectIdentifier(object), indexPath, type, newIndexPath))
        if trace { print("  report \(object.objectID) \(type) \(String(describing: indexPath)) → \(String(describing: newIndexPath))") }
    }
    func controllerDidChangeContent(_ controller: FetchedResultsController<Row>) {
        audit?.check(events[batchStart...], results: controller.fetchedObjects)
        events.append(.did)
    }
    func controller(_ controller: FetchedResultsController<Row>, didChangeContentWith changes: FetchedResultsChanges) { batches.append(changes) }
}

/// Sections of object identities: what a table shows.
struct ListModel: Equatable, CustomStringConvertible {
    var sections: [(name: String, rows: [ObjectIdentifier])]

    static func == (a: ListModel, b: ListModel) -> Bool {
        a.sections.count == b.sections.count && zip(a.sections, b.sections).allSatisfy { $0.name == $1.name && $0.rows == $1.rows }
    }
    var description: String { sections.map { "\($0.name):\($0.rows.count)" }.joined(separator: " ") }

    init<T: ManagedObject>(_ controller: FetchedResultsController<T>) {
        sections = controller.sections.map { ($0.name, $0.objects.map(ObjectIdentifier.init)) }
    }

    /// Groups objects in fetch order by the section key (or one section when `key` is nil).
    init(fetched objects: [Row], key: ((Row) -> String)?) {
        guard let key else { sections = [("", objects.map(ObjectIdentifier.init))]; return }
        sections = []
        for object in objects {
            let name = key(object)
            if sections.last?.name != name { sections.append((name, [])) }
            sections[sections.count - 1].rows.append(ObjectIdentifier(object))
        }
    }

    /// Applies the recorded events of one batch, in the documented order; returns false when an
    /// index path is invalid.
    mutating func apply(_ events: ArraySlice<Recorder.Event>) -> Bool {
        var removals: [(FetchedIndexPath, ObjectIdentifier)] = []
        var insertions: [(FetchedIndexPath, ObjectIdentifier)] = []
        var deletedSections: [Int] = []
        var insertedSections: [(Int, String)] = []
        for event in events {
            switch event {
            case .section(let name, let index, .insert): insertedSections.append((index, name))
            case .section(_, let index, .delete): deletedSections.append(index)
            case .row(let object, let old, .delete, _): if let old { removals.append((old, object)) } else { return false }
            case .row(let object, _, .insert, let new): if let new { insertions.append((new, object)) } else { return false }
            case .row(let object, let old, .move, let new):
                guard let old, let new else { return false }
                removals.append((old, object))
                insertions.append((new, object))
            case .row(let object, _, .update, let new):
                guard let new else { return false }
                _ = (object, new)
            default: break
            }
        }
        for (path, object) in removals.sorted(by: { $0.0 > $1.0 }) {
            guard sections.indices.contains(path.section), sections[path.section].rows.indices.contains(path.row),
                  sections[path.section].rows[path.row] == object else { return false }
            sections[path.section].rows.remove(at: path.row)
        }
        for index in deletedSections.sorted(by: >) {
            guard sections.indices.contains(index), sections[index].rows.isEmpty else { return false }
            sections.remove(at: index)
        }
        for (index, name) in insertedSections.sorted(by: { $0.0 < $1.0 }) {
            guard index <= sections.count else { return false }
            sections.insert((name, []), at: index)
        }
        for (path, object) in insertions.sorted(by: { $0.0 < $1.0 }) {
            guard sections.indices.contains(path.section), path.row <= sections[path.section].rows.count else { return false }
            sections[path.section].rows.insert(object, at: path.row)
        }
        // Updates name rows of the new state.
        for event in events {
            if case .row(let object, _, .update, let new?) = event {
                guard sections.indices.contains(new.section), sections[new.section].rows.indices.contains(new.row),
                      sections[new.section].rows[new.row] == object else { return false }
            }
        }
        return true
    }
}

/// Applies the recorder's events since `start` to `model`, batch by batch.
func applyEvents(_ recorder: Recorder, from start: Int, to model: inout ListModel) -> Bool {
    var index = start
    let events = recorder.events
    while index < events.count {
        guard case .will = events[index] else { return false }
        guard let end = events[index...].firstIndex(where: { if case .did = $0 { return true } else { return false } }) else { return false }
        if !model.apply(events[(index + 1)..<end]) { return false }
        index = end + 1
    }
    return true
}

/// Collects the change sets a context publishes.
final class ChangeCollector: Sendable {
    let sets = Locked<[ChangeSet]>([])
    func take() -> [ChangeSet] { sets.withLock { let all = $0; $0 = []; return all } }
}

/// A store with two private contexts: `context`, the one a test watches, and `other`, whose
/// saves are collected so the test decides when they merge into `context`.
struct TwoContexts {
    let directory = TemporaryDirectory()
    let coordinator: StoreCoordinator
    let context: ObjectContext
    let other: ObjectContext
    let collector = ChangeCollector()
    /// Collects `other`'s change sets while the fixture lives (cancelled when dropped).
    private let observation: ChangeObservation

    init() async throws {
        coordinator = try await makeCoordinator(directory)
        context = ObjectContext(.privateQueue, coordinator: coordinator)
        other = ObjectContext(.privateQueue, coordinator: coordinator)
        observation = other.observeChanges { [collector] changes in collector.sets.withLock { $0.append(changes) } }
    }

    /// Saves one row (title "a", rank 1) in `context` and lists it by rank, reporting to
    /// `recorder`: the list a test then changes.
    func listOfOneSavedRow(reportingTo recorder: Recorder) throws -> (controller: FetchedResultsController<Row>, row: Row) {
        try context.performAndWait {
            let row = context.insert(Row.self); row.title = "a"; row.rank = 1
            try context.save()
            let controller = try FetchedResultsController(fetchRequest: FetchRequest<Row>(sortKeys: [SortKey("rank")]), context: context)
            controller.delegate = recorder
            try controller.performFetch()
            return (controller, row)
        }
    }

    /// Sets the first row's title in `other` and saves it (collected, not yet merged).
    func saveTitleInOther(_ title: String) throws {
        try other.performAndWait {
            try #require(try other.fetch(FetchRequest<Row>()).first).title = title
            try other.save()
        }
    }

    /// Merges into `context` what `other` saved since the last merge.
    func mergeOthersSaves() {
        context.performAndWait { for changes in collector.take() { context.merge(changes) } }
    }

    /// Runs `change` on each of `other`'s rows whose rank is in `ranks`, saves `other`, and
    /// merges the save into `context`.
    func changeInOther(ranks: Set<Int64>, _ change: (Row) -> Void) throws {
        try other.performAndWait {
            for row in try other.fetch(FetchRequest<Row>()) where ranks.contains(row.rank) { change(row) }
            try other.save()
        }
        mergeOthersSaves()
    }
}

/// A delegate that takes whole batches only (no row method of its own).
final class BatchesOnly: FetchedResultsControllerDelegate {
    typealias Object = Row
    var rows = 0
    var last: FetchedResultsChanges?
    func controller(_ controller: FetchedResultsController<Row>, didChangeContentWith changes: FetchedResultsChanges) {
        rows += changes.rows.count
        last = changes
    }
}

public import Strata

/// A section of a controller's results.
///
/// For example:
/// ```swift
/// for section in controller.sections { print(section.name, section.numberOfObjects) }
/// ```
public struct FetchedSection<Object: ManagedObject> {
    /// The section's name: the section key's value as text (empty for an unsectioned controller).
    public let name: String
    let entries: [ResultsIndex.Entry]
    /// Makes the objects of results placed without one.
    let controller: FetchedResultsController<Object>
    /// How many objects the section holds.
    public var numberOfObjects: Int { entries.count }
    /// The section's objects in order (faults stay faults; a result placed from a merged save
    /// gets its object, a fault, now).
    public var objects: [Object] { controller.objects(of: entries).compactMap { $0 as? Object } }
    /// The IDs of the section's objects in order, as the objects hold them now (a parent's
    /// save to the store can make temporary IDs permanent without telling the child's observers).
    public var objectIDs: [ObjectID] { entries.map { $0.object?.objectID ?? $0.id } }
}

/// Receives a controller's change reports on its context's queue, once per change batch:
/// `controllerWillChangeContent`, then section changes, then row changes, then
/// `controllerDidChangeContent` and the whole batch as ``FetchedResultsChanges``. Every
/// method has an empty default.
///
/// For example:
/// ```swift
/// final class Printer: FetchedResultsControllerDelegate {
///     func controller(_ c: FetchedResultsController<Note>, didChange object: Note, at old: FetchedIndexPath?,
///                     for type: FetchedResultsChangeType, newIndexPath: FetchedIndexPath?) { print(type, old, newIndexPath) }
/// }
/// ```
public protocol FetchedResultsControllerDelegate<Object>: AnyObject {
    /// The controller's object type.
    associatedtype Object: ManagedObject
    /// A batch begins.
    func controllerWillChangeContent(_ controller: FetchedResultsController<Object>)
    /// A section was inserted (new index) or deleted (old index).
    func controller(_ controller: FetchedResultsController<Object>, didChangeSection name: String, at index: Int, for type: FetchedResultsChangeType)
    /// A row was inserted, deleted, moved or updated.
    func controller(_ controller: FetchedResultsController<Object>, didChange object: Object, at indexPath: FetchedIndexPath?,
                    for type: FetchedResultsChangeType, newIndexPath: FetchedIndexPath?)
    /// A batch ended.
    func controllerDidChangeContent(_ controller: FetchedResultsController<Object>)
    /// The whole batch, by object ID (called after `controllerDidChangeContent`).
    func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith changes: FetchedResultsChanges)
}

extension FetchedResultsControllerDelegate {
    public func controllerWillChangeContent(_ controller: FetchedResultsController<Object>) {}
    public func controller(_ controller: FetchedResultsController<Object>, didChangeSection name: String, at index: Int, for type: FetchedResultsChangeType) {}
    public func controller(_ controller: FetchedResultsController<Object>, didChange object: Object, at indexPath: FetchedIndexPath?,
                           for type: FetchedResultsChangeType, newIndexPath: FetchedIndexPath?) {
        // This default runs only for a delegate that does not implement the method: the
        // controller then stops making objects to hand it (as Core Data calls only the methods
        // a delegate implements). Not when another delegate forwarded the call here.
        if controller.delegate === self { controller.delegateIgnoresRows = true }
    }
    public func controllerDidChangeContent(_ controller: FetchedResultsController<Object>) {}
    public func controller(_ controller: FetchedResultsController<Object>, didChangeContentWith changes: FetchedResultsChanges) {}
}

/// Keeps a sorted, optionally sectioned result of a fetch request up to date as its context
/// changes, and reports each change batch to a delegate with index paths.
///
/// It lives on its context's queue like the context's objects: create it, call it and read it
/// there (inside `perform`/`performAndWait`, or on the main queue for a main-queue context);
/// it is not `Sendable`, and its delegate is called on that queue. It follows every save of the
/// context, every merge into it, and the unsaved changes published by
/// `context.processPendingChanges()`.
///
/// For example:
/// ```swift
/// var request = FetchRequest<Note>(sortKeys: [SortKey("folderName"), SortKey("title")])
/// request.fetchBatchSize = 50
/// let controller = try FetchedResultsController(fetchRequest: request, context: main, sectionKeyPath: "folderName")
/// controller.delegate = myDelegate
/// try controller.performFetch()
/// let first = controller.object(at: FetchedIndexPath(section: 0, row: 0))
/// ```
public final class FetchedResultsController<Object: ManagedObject> {
    /// The context the controller follows.
    public let context: ObjectContext
    /// The request; change it, then call ``performFetch()`` (or use ``refetch(with:)`` to get a difference reported).
    public var fetchRequest: FetchRequest<Object>
    /// The key path the results are grouped by, or nil. When it is not the first sort key's
    /// key path, the results are sorted by it first (see ``init(fetchRequest:context:sectionKeyPath:)``).
    public let sectionKeyPath: String?
    /// Receives change reports (held weakly).
    public weak var delegate: (any FetchedResultsControllerDelegate<Object>)? {
        didSet { delegateIgnoresRows = false }
    }
    /// Whether the delegate was found not to implement the row method (its default ran), so
    /// row reports need no objects.
    var delegateIgnoresRows = false
    /// While true, changes update the results silently (see ``performManualReorder(_:)``).
    public internal(set) var isManuallyReordering = false
    /// Whether ``performFetch()`` has run.
    public private(set) var hasFetched = false

    // The results' state below is `@exclusivity(unchecked)`: the controller is used on its
    // context's queue only (the context's debug-mode queue trap and ThreadSanitizer check that),
    // and no user code runs inside an access to it, so the runtime's per-access bookkeeping (a
    // few percent of a merged import's cost on the main queue) buys no safety here.
    @exclusivity(unchecked) var index: ResultsIndex
    /// Every fetched object by current ID, with the ID and values it is sorted by.
    @exclusivity(unchecked) var members = ObjectIDTable<Member>()
    /// The key in `members` of each fetched object held under another key than its ID (a
    /// temporary key, its object saved since): every other one is held under its own ID
    /// (``heldKey(of:)``), so a result costs no entry here.
    @exclusivity(unchecked) var unmatchedKeys: [ObjectIdentifier: ObjectID] = [:]
    /// The latest values of changed keys the controller has taken in, by result: an update
    /// carrying only these values again (the save of processed changes, the save after a
    /// manual reorder) is an echo and is not reported.
    @exclusivity(unchecked) var shownValues: [ObjectID: [String: PropertyValue]] = [:]
    /// The next few matching objects after a full `fetchLimit` window, in order, each with the
    /// ID and values it is sorted by (``spareCount`` of them at most): a row leaving the window
    /// is replaced from here without a fetch. Every other object sorts after the last spare or
    /// does not match. Empty for other requests and for a window that is not full.
    @exclusivity(unchecked) var spares: [ResultsIndex.Entry] = []
    private var observation: ChangeObservation?

    /// A result as the controller holds it (a type outside the generic class, so that the
    /// dictionaries holding members are specialised rather than generic).
    typealias Member = ResultsMember

    /// Creates a controller. The request needs at least one sort key. A section key path may
    /// be any attribute or to-one key path: when it is not the first sort key's, the results
    /// are sorted by it first (in the first sort key's direction), then by the request's sort
    /// keys, so each section's rows are together. Core Data asks that such a key orders the
    /// rows as the first sort key does (an initial letter of a sorted name, a rank's band);
    /// then the order is the request's own.
    ///
    /// For example, sections by a folder's name over notes sorted by title:
    /// ```swift
    /// let request = FetchRequest<Note>(sortKeys: [SortKey("title")])
    /// let controller = try FetchedResultsController(fetchRequest: request, context: main, sectionKeyPath: "folder.name")
    /// ```
    ///
    /// - Throws: ``FetchedResultsError`` for a request without order, or Strata's errors for a
    ///   request that does not fit the model.
    public init(fetchRequest: FetchRequest<Object>, context: ObjectContext, sectionKeyPath: String? = nil) throws {
        guard !fetchRequest.sortKeys.isEmpty else { throw FetchedResultsError.missingSortKey }
        self.context = context
        self.fetchRequest = fetchRequest
        self.sectionKeyPath = sectionKeyPath
        self.index = ResultsIndex(evaluator: try Self.indexedRequest(fetchRequest, sectionKeyPath: sectionKeyPath).evaluator(in: context), context: context,
                                  isSectioned: sectionKeyPath != nil)
        let box = WeakController(self)
        observation = context.observeChanges { changes in box.controller?.handle(changes) }
    }

    /// Fetches the results (honouring `fetchBatchSize`: past the first page objects stay faults
    /// when unsectioned; a sectioned controller reads every object's section key). Reports nothing.
    ///
    /// For example:
    /// ```swift
    /// try context.performAndWait { try controller.performFetch() }
    /// ```
    public func performFetch() throws {
        guard !fetchRequest.sortKeys.isEmpty else { throw FetchedResultsError.missingSortKey }
        try loadResults()
        shownValues = [:]
        hasFetched = true
    }

    /// Fetches the results into the index (shared by ``performFetch()`` and windowed batches);
    /// when it throws, the results are as they were.
    func loadResults() throws {
        var request = Self.indexedRequest(fetchRequest, sectionKeyPath: sectionKeyPath)
        let evaluator = try request.evaluator(in: context)
        let spareCount = spareCount
        request.fetchLimit += spareCount
        var objects = try context.fetch(request)
        let past = objects.count > fetchRequest.fetchLimit && spareCount > 0 ? Array(objects[fetchRequest.fetchLimit...]) : []
        if !past.isEmpty { objects.removeLast(past.count) }
        let statistics = index.statistics
        index = ResultsIndex(evaluator: evaluator, context: context, isSectioned: sectionKeyPath != nil)
        index.statistics = statistics
        index.load(objects, readValues: sectionKeyPath != nil || fetchRequest.fetchBatchSize <= 0)
        spares = makeSpares(past)
        members = ObjectIDTable()
        unmatchedKeys = [:]
        for section in index.sections {
            for entry in section.entries {
                members[entry.id] = Member(object: entry.object, indexedID: entry.id, values: entry.values)
                setHeldKey(entry.id, of: entry.object)
            }
        }
    }

    /// The sections in order (one, possibly empty, when there is no section key path).
    public var sections: [FetchedSection<Object>] {
        index.sections.map { FetchedSection(name: $0.name, entries: $0.entries, controller: self) }
    }

    /// Every result in order, across sections.
    public var fetchedObjects: [Object] {
        index.sections.flatMap { section in objects(of: section.entries).compactMap { $0 as? Object } }
    }

    /// The object at `indexPath` (which must be valid).
    public func object(at indexPath: FetchedIndexPath) -> Object {
        guard let object = object(at: indexPath.row, in: index.sections[indexPath.section]) as? Object else {
            preconditionFailure("The controller holds only \(Object.self) objects.")  // programmer error: fetched with FetchRequest<Object>
        }
        return object
    }

    /// Where `object` is in the results, or nil (O(log n) for objects whose values were read).
    public func indexPath(for object: Object) -> FetchedIndexPath? {
        guard let member = members[object.objectID] else { return nil }
        // A result whose object was never made is this context's object for its ID.
        guard member.object.map({ $0 === object }) ?? (object.context === context) else { return nil }
        return index.locate(object, values: member.values, id: member.indexedID)
    }

    /// The results as section names and object IDs (as the objects hold them now), for diffable
    /// data sources (O(n)).
    public var snapshot: FetchedResultsSnapshot {
        FetchedResultsSnapshot(sections: index.sections.map { .init(name: $0.name, objectIDs: $0.entries.map { $0.object?.objectID ?? $0.id }) })
    }

    /// Counts of the work done so far (comparisons, evaluations): how tests prove a change
    /// report costs O(log n), not O(n).
    public var statistics: FetchedResultsStatistics { index.statistics }

    /// Replaces the request, fetches again and reports the difference to the delegate as one
    /// batch (used by ``FetchedDataSource`` when the search term or constraint changes).
    ///
    /// For example:
    /// ```swift
    /// var request = controller.fetchRequest
    /// request.predicate = try ObjectPredicate("title CONTAINS[c] %@", "milk")
    /// let changes = try controller.refetch(with: request)
    /// ```
    @discardableResult
    public func refetch(with request: FetchRequest<Object>) throws -> FetchedResultsChanges {
        guard !request.sortKeys.isEmpty else { throw FetchedResultsError.missingSortKey }
        let old = snapshot
        let oldFetched = hasFetched
        var objects: [ObjectID: ManagedObject] = [:]
        members.forEach { id, member in if let object = member.object { objects[id] = object } }
        fetchRequest = request
        try performFetch()
        guard oldFetched else { return FetchedResultsChanges() }
        let changes = snapshot.difference(from: old)
        members.forEach { id, member in if let object = member.object { objects[id] = object } }
        report(changes, objects: objects)
        return changes
    }
}

extension FetchedResultsController {
    /// The request the results are fetched and indexed with: `request`, with the section key
    /// sorted first when it is not the first sort key already (each section's rows together).
    static func indexedRequest(_ request: FetchRequest<Object>, sectionKeyPath: String?) -> FetchRequest<Object> {
        guard let sectionKeyPath, let first = request.sortKeys.first, first.keyPath != sectionKeyPath else { return request }
        var indexed = request
        indexed.sortKeys.insert(SortKey(sectionKeyPath, ascending: first.ascending), at: 0)
        return indexed
    }
}

/// Lets the context's observer reach the controller without keeping it alive. Used only on
/// the context's queue, where the observer is called.
final class WeakController<Object: ManagedObject>: @unchecked Sendable {  // safe: touched only on the context's queue
    weak var controller: FetchedResultsController<Object>?
    init(_ controller: FetchedResultsController<Object>) { self.controller = controller }
}

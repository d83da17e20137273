public import Foundation
import OrderedCollections
import Synchronization

/// A scratch pad of managed objects: it fetches them, tracks every change, and saves them
/// to its store in one transaction.
///
/// A context is bound to a queue: the main queue (`.mainQueue`, for UI work) or its own
/// private serial queue (`.privateQueue`). Touch it and its objects only inside ``perform(_:)``
/// or ``performAndWait(_:)`` (or, for a main-queue context, on the main queue).
///
/// For example:
/// ```swift
/// let context = ObjectContext(.privateQueue, coordinator: coordinator)
/// try await context.perform {
///     let note = context.insert(Note.self)
///     note.title = "Hello"
///     try context.save()
/// }
/// ```
public final class ObjectContext: @unchecked Sendable {  // safe: all mutable state is touched only on `queue`
    /// Which queue a context runs on.
    public enum ConcurrencyType: Sendable {
        /// The main queue: for the UI.
        case mainQueue
        /// A private serial queue of the context's own.
        case privateQueue
    }

    /// Which queue this context runs on.
    public let concurrencyType: ConcurrencyType
    /// The coordinator of the store under this context (its own, or its root ancestor's).
    public let coordinator: StoreCoordinator
    /// The context this one saves into, for a child context; `nil` for a root context.
    public let parent: ObjectContext?
    /// The model of the store.
    public var model: ObjectModel { coordinator.model }
    /// A name shown in diagnostics and debug-mode traps.
    public let name: String

    /// Whether touching the context or its objects off its queue traps: fixed at creation, from
    /// the initialiser's `checksQueueAccess` argument or else ``concurrencyDebugging``.
    public let checksQueueAccess: Bool

    /// The default for ``checksQueueAccess`` of new contexts: on in debug builds, off in release.
    /// Contexts read it when they are created. It is process-wide: to check (or not) one
    /// context, e.g. in a test, pass `checksQueueAccess:` to its initialiser instead.
    ///
    /// For example:
    /// ```swift
    /// ObjectContext.concurrencyDebugging = false   // e.g. for a benchmark run in debug
    /// ```
    public static var concurrencyDebugging: Bool {
        get { debugFlag.load(ordering: .relaxed) }
        set { debugFlag.store(newValue, ordering: .relaxed) }
    }
    private static let debugFlag: Atomic<Bool> = {
        var debug = false
        assert({ debug = true; return true }())
        return Atomic(debug)
    }()

    let queue: ContextQueue
    /// Entities (bit = entity index; all bits when the model has more than 64) this context
    /// may have unsaved changes of. Readable from any queue, so a child can tell whether it
    /// must ask its parent or can read the store directly. Bits are set on every change and
    /// cleared only when nothing is pending, so a stale bit only costs a trip to the parent.
    let pendingEntities = Atomic<UInt64>(0)
    /// Children's pushes handed to this (private-queue) context and not yet applied on its
    /// queue: while any is, a child reads through this context whatever the bits above say.
    let pushesInFlight = Atomic<Int>(0)
    /// Child contexts (weakly), for auto-merging and telling them new permanent IDs.
    let children = Locked<[WeakContext]>([])
    /// Change and will-save observers.
    let observers = ChangeObservers()
    /// A root context's subscription to its coordinator's saves (other root contexts' saves
    /// merge here when ``automaticallyMergesChangesFromParent`` is on); `nil` for a child.
    private var saveSubscription: ChangeObservation?
    /// The name of that subscription, so that a save of this context skips it.
    let saveSubscriber = UUID()
    /// The merge policy and automatic merging: settable from any thread (see ``ContextSettings``).
    let settings: Locked<ContextSettings>
    // The registry and the pending sets are `@exclusivity(unchecked)` for the reason given on
    // `ManagedObject`'s storage: queue-confined, never accessed reentrantly.

    /// Where rows this context does not hold come from: its parent, or the store.
    let source: RowSource
    /// The objects held, one per ID, and the temporary IDs seen become permanent.
    @exclusivity(unchecked) var registry = ObjectRegistry()
    /// The unsaved inserts, updates and deletes.
    @exclusivity(unchecked) var pending = ChangeTracker()
    /// Permanent IDs an ancestor assigned that this context has not applied yet: filled by the
    /// ancestor synchronously, from its queue, the moment it assigns them; applied on this
    /// context's queue before it next exchanges IDs with anyone (see
    /// `ObjectContext+PermanentIDs.swift`).
    let incomingPermanentIDs = Locked<[ObjectID: ObjectID]>([:])
    /// What ``processPendingChanges()`` last reported; `nil` until it is first called.
    var pendingChangeTracker: PendingChangeTracker?
    /// The undo history (``undoManager``); `nil`, the default, records nothing.
    @exclusivity(unchecked) var undoHistory: ContextUndoManager?
    /// Loaded to-ones pointing at each ID, as hints checked before use: lets a to-many or a
    /// one-to-one read later find the loaded inverse sides it must agree with (see
    /// `ObjectContext+Inverses.swift`). Filed in ``pointerLog`` first, folded in here on demand.
    @exclusivity(unchecked) var pointers: [InverseLinkKey: Set<ManagedObject>] = [:]
    /// While a merge tells its observers about a change set that holds a store save's inserts:
    /// the change set, from which faults of the new objects fill without reading the store
    /// (``ChangeSet/savedSnapshot(of:)``). `nil` otherwise.
    @exclusivity(unchecked) var mergingChanges: ChangeSet?
    /// Finds the save among ``mergingChanges``' inserts (made when there are several).
    @exclusivity(unchecked) var mergingLookup: SavedInsertsLookup?
    /// The rows the last child's push brought (``PushRows``), kept while this context has a
    /// parent: its own push passes them on instead of reading them again, while they are current.
    @exclusivity(unchecked) var pushedRows: PushRows?
    /// The latest store commit the context was told of: merged change sets, its own saves,
    /// its parent's change sets (``ChangeSet/commits``; see `ObjectContext+MergeOrder.swift`).
    @exclusivity(unchecked) var lastMergedCommit: UInt64 = 0
    /// The commits of the last change set the context was told of (the pieces of one change
    /// set all carry its range).
    @exclusivity(unchecked) var lastMergedRange: ClosedRange<UInt64>?
    /// Loaded to-ones not yet folded into ``pointers``.
    @exclusivity(unchecked) var pointerLog: [PointerNote] = []
    /// The construction record reused for inserted and fetched objects and faults (one
    /// allocation per context, not per object; see ``ObjectConstruction/make(_:_:collectsDefaults:reusing:)``).
    @exclusivity(unchecked) var spareConstruction: ObjectConstruction?
    /// The class `insert(_:)` was last asked for and its entity: an import inserts one class
    /// after another, and the model's table by class hashes the class each time.
    @exclusivity(unchecked) var lastInsertedClass: (type: ObjectIdentifier, entity: EntityDescription)?
    /// A save whose SQLite work runs off the queue (``saveInBackground()``), until the queue
    /// applies its outcome.
    @exclusivity(unchecked) var saveInFlight: SaveInFlight?

    /// Constructs a fetched object or a fault, reusing ``spareConstruction``.
    func constructFetched(_ entity: EntityDescription, _ creation: consuming ObjectCreation) -> ManagedObject {
        let spare = spareConstruction
        spareConstruction = nil   // taken: a construction nested in an initialiser makes its own
        let (object, construction) = ObjectConstruction.make(entity, consume creation, reusing: spare)
        spareConstruction = construction
        if undoHistory != nil { object.lifecycle.recordsUndo = true }
        return object
    }

    /// Creates a root context on the main queue or a private queue, saving to `coordinator`.
    ///
    /// `checksQueueAccess` decides whether touching the context or its objects off its queue
    /// traps; `nil` (the default) takes ``concurrencyDebugging`` as it is now. Pass a value to
    /// fix it for this context alone, without changing the process-wide default.
    ///
    /// For example:
    /// ```swift
    /// let context = ObjectContext(.privateQueue, coordinator: coordinator)
    /// let checked = ObjectContext(.privateQueue, coordinator: coordinator, checksQueueAccess: true)
    /// ```
    public init(_ concurrencyType: ConcurrencyType, coordinator: StoreCoordinator, name: String? = nil, mergePolicy: MergePolicy = .error,
                checksQueueAccess: Bool? = nil) {
        self.settings = Locked(ContextSettings(mergePolicy: mergePolicy))
        self.concurrencyType = concurrencyType
        self.coordinator = coordinator
        self.parent = nil
        self.source = RowSource(parent: nil, coordinator: coordinator)
        self.name = name ?? (concurrencyType == .mainQueue ? "main context" : "private context")
        self.queue = concurrencyType == .mainQueue ? .main() : .makePrivate(label: "strata.context.\(name ?? "private")")
        self.checksQueueAccess = checksQueueAccess ?? Self.concurrencyDebugging
        coordinator.rowCache.contextOpened()
        saveSubscription = coordinator.saveObservers.addChangeHandler(id: saveSubscriber) { [weak self] changes in
            guard let context = self else { return }
            context.queue.async {
                if context.automaticallyMergesChangesFromParent { context.mergeChanges(changes) } else { _ = context.noteCommits(of: changes) }
            }
        }
    }

    /// Creates a child context: its saves go into `parent` (in memory), and it sees the
    /// parent's unsaved changes. A save into a main-queue parent returns once the parent holds
    /// the changes; into a private-queue parent it returns at once, and the parent applies them
    /// before any work queued on it afterwards (its `perform`, its `save()`).
    ///
    /// `checksQueueAccess` decides whether touching the context or its objects off its queue
    /// traps; `nil` (the default) takes ``concurrencyDebugging`` as it is now (not the parent's
    /// setting).
    ///
    /// For example:
    /// ```swift
    /// let editor = ObjectContext(.privateQueue, parent: mainContext)
    /// let unchecked = ObjectContext(.privateQueue, parent: mainContext, checksQueueAccess: false)
    /// ```
    public init(_ concurrencyType: ConcurrencyType, parent: ObjectContext, name: String? = nil, mergePolicy: MergePolicy = .error,
                checksQueueAccess: Bool? = nil) {
        self.settings = Locked(ContextSettings(mergePolicy: mergePolicy))
        self.concurrencyType = concurrencyType
        self.coordinator = parent.coordinator
        self.parent = parent
        self.source = RowSource(parent: parent, coordinator: parent.coordinator)
        self.name = name ?? (concurrencyType == .mainQueue ? "main child context" : "private child context")
        self.queue = concurrencyType == .mainQueue ? .main() : .makePrivate(label: "strata.context.\(name ?? "child")")
        self.checksQueueAccess = checksQueueAccess ?? Self.concurrencyDebugging
        parent.coordinator.rowCache.contextOpened()
        parent.children.withLock { children in
            children.removeAll { $0.context == nil }
            children.append(WeakContext(self))
        }
    }

    deinit {
        // Objects reference each other strongly through relationships: cut them loose so the
        // graph is freed with the context (objects still held elsewhere become detached).
        for object in registry.all { object.detachFromContext() }
        coordinator.rowCache.contextClosed()
    }

    /// How conflicts are resolved when this context saves, and what a merge does with local
    /// edits. `.error` by default.
    ///
    /// As in Core Data, this setter may be called from any thread, so set-up code can configure
    /// a new context before its first ``perform(_:)``. A save or merge already running on the
    /// context's queue uses the policy it started with.
    ///
    /// For example:
    /// ```swift
    /// let importer = ObjectContext(.privateQueue, coordinator: coordinator)
    /// importer.mergePolicy = .mergeByPropertyObjectTrump   // no perform needed
    /// ```
    public var mergePolicy: MergePolicy {
        get { settings.withLock { $0.mergePolicy } }
        set { settings.withLock { $0.mergePolicy = newValue } }
    }

    /// When `true`, the context merges every change set its parent publishes (for a root
    /// context: every save of another root context on the same coordinator). Settable from any
    /// thread, like ``mergePolicy``.
    ///
    /// For example:
    /// ```swift
    /// let main = ObjectContext(.mainQueue, coordinator: coordinator)
    /// main.automaticallyMergesChangesFromParent = true
    /// ```
    public var automaticallyMergesChangesFromParent: Bool {
        get { settings.withLock { $0.automaticallyMergesChangesFromParent } }
        set { settings.withLock { $0.automaticallyMergesChangesFromParent = newValue } }
    }

    /// A name recorded with this context's saves in the store's history (see
    /// ``StoreOptions/recordsHistory``), so readers of the history can tell who wrote what
    /// (an importer, a sync engine, the user). Settable from any thread, like ``mergePolicy``.
    ///
    /// For example:
    /// ```swift
    /// importer.transactionAuthor = "importer"
    /// ```
    public var transactionAuthor: String? {
        get { settings.withLock { $0.transactionAuthor } }
        set { settings.withLock { $0.transactionAuthor = newValue } }
    }

    /// How old, in seconds, a row in the coordinator's row cache may be for this context to
    /// use it when it fires a fault or reads an object by ID (``existingObject(with:)``), as
    /// Core Data's `stalenessInterval`: negative (the default, -1) uses a cached row of any
    /// age, 0 always reads the store, a positive value uses rows read at most that long ago
    /// (NaN counts as 0). Fetches and refreshes always read the store (and refresh the cache). Settable from any
    /// thread, like ``mergePolicy``.
    ///
    /// The cache never holds a row older than what this process last wrote or read: saves
    /// through the coordinator evict the rows they write, and a commit by another coordinator
    /// of the process on the same file empties it. A commit by another process empties it when
    /// the coordinator notices one (its next save, a read of the store that sees it,
    /// ``StoreCoordinator/hasExternalChanges()``); a context that must see such writes on every
    /// fault without polling sets 0. See docs/architecture.md, "Row cache".
    ///
    /// For example:
    /// ```swift
    /// context.stalenessInterval = 0    // faults always read SQLite
    /// context.stalenessInterval = 30   // rows read in the last 30 s are good enough
    /// ```
    public var stalenessInterval: TimeInterval {
        get { settings.withLock { $0.stalenessInterval } }
        set { settings.withLock { $0.stalenessInterval = newValue.isNaN ? 0 : newValue } }
    }

    // MARK: Running work on the context's queue

    /// Runs `body` on the context's queue and returns its result. Called on that queue (a
    /// task running on ``executor``, or main-actor code for a main-queue context) it runs
    /// `body` at once, as Core Data's `perform(schedule: .immediate)` does; elsewhere it
    /// queues `body` behind the queue's earlier work and waits for it.
    ///
    /// Called from Swift's global executor (code isolated to no actor, in a task with no
    /// executor preference, on a thread that holds no context's queue) while a private root
    /// context's queue is idle, it runs `body` at once on the calling thread, holding the
    /// queue as its own block would, the way a call into an idle actor runs: no thread hop.
    /// Blocks queued meanwhile wait for it. Callers on the main actor or on another actor
    /// always hand `body` over, so the main queue never runs a private context's work; so do
    /// callers of a child context, whose save waits on its parent's queue.
    ///
    /// For example:
    /// ```swift
    /// let count = try await context.perform { try context.count(for: FetchRequest<Note>()) }
    /// ```
    nonisolated(nonsending) public func perform<T>(_ body: sending @escaping () throws -> sending T) async throws -> sending T {
        if queue.isCurrent { return try body() }
        let isolation = #isolation
        if isolation == nil, parent == nil, Self.runsOnGlobalExecutor, let result = try queue.runIfIdle(body) { return result }
        let work = Transfer(value: body)
        let result: Transfer<Result<T, any Error>> = await withCheckedContinuation { continuation in
            queue.async {
                let outcome: Result<T, any Error>
                do { outcome = .success(try work.value()) } catch { outcome = .failure(error) }
                continuation.resume(returning: Transfer(value: outcome))
            }
        }
        return try result.value.get()
    }

    /// Whether the current task runs on Swift's global executor (no task executor preference)
    /// on a thread that holds no context's queue (not the main queue, not another context's
    /// block, where `Task.immediate` may have started it).
    private static var runsOnGlobalExecutor: Bool {
        withUnsafeCurrentTask { $0 != nil && $0?.unownedTaskExecutor == nil } && ContextQueue.threadHoldsNone
    }

    /// Runs `body` on the context's queue and waits for it. Re-entrant: called on the
    /// context's queue (for a main-queue context: on the main queue) it runs inline.
    ///
    /// For example:
    /// ```swift
    /// let title = context.performAndWait { note.title }
    /// ```
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        try queue.sync(body)
    }

    /// An executor that runs Swift tasks on the context's queue. A loop that calls
    /// ``perform(_:)`` many times runs faster inside
    /// `withTaskExecutorPreference(context.executor) { … }`: its code then runs on the
    /// queue, and each `perform` runs its block at once instead of hopping to the queue and
    /// back (two thread switches, tens of microseconds each on a small machine). The queue
    /// runs nothing else until the task suspends (`await Task.yield()` lets other blocks in),
    /// so prefer a private context's executor, not the main context's, for a long loop.
    ///
    /// For example:
    /// ```swift
    /// try await withTaskExecutorPreference(importer.executor) {
    ///     for title in titles {
    ///         try await importer.perform {
    ///             importer.insert(Note.self).title = title
    ///             try importer.save()
    ///         }
    ///     }
    /// }
    /// ```
    public var executor: any TaskExecutor { queue }

    /// Seconds this context has spent running work on its queue (its `perform` and
    /// `performAndWait` blocks when entered from elsewhere, and merges delivered to it). For a
    /// main-queue context, that is main-queue time the context used.
    ///
    /// For example:
    /// ```swift
    /// print("main queue busy:", stack.mainContext.busySeconds)
    /// ```
    public var busySeconds: Double { queue.busySeconds }

    /// Traps when called off the context's queue in debug mode.
    ///
    /// Every use of the context goes through here, so it also settles a save in flight first
    /// (``saveInBackground()``): what follows runs after that save.
    @inline(__always)
    func checkQueue(_ what: @autoclosure () -> String = "the context") {
        trapIfOffQueue(what())
        if saveInFlight != nil { settleSave() }
    }

    /// Traps (when ``checksQueueAccess``) off the context's queue.
    func trapIfOffQueue(_ what: @autoclosure () -> String = "the context") {
        if checksQueueAccess, !queue.isCurrent {
            preconditionFailure("Strata concurrency violation: \(what()) was used off the queue of \(name). Wrap the code in \(name).perform { } or performAndWait { }.")  // programmer error
        }
    }

    // MARK: Objects

    /// Whether the context has unsaved inserts, updates or deletes.
    public var hasChanges: Bool {
        checkQueue()
        return !pending.isEmpty
    }
    /// Objects inserted since the last save.
    public var insertedObjects: Set<ManagedObject> { checkQueue(); return Set(pending.inserted) }
    /// Saved objects changed since the last save.
    public var updatedObjects: Set<ManagedObject> { checkQueue(); return Set(pending.updated) }
    /// Objects deleted since the last save.
    public var deletedObjects: Set<ManagedObject> { checkQueue(); return Set(pending.deleted) }
    /// Every object the context holds.
    public var registeredObjects: Set<ManagedObject> { checkQueue(); return Set(registry.all) }

    /// The object the context holds for `id`, or nil: never makes a fault and never reads the
    /// store (Core Data's `registeredObject(for:)`). A temporary ID the context has since saved
    /// finds the object under its permanent ID.
    ///
    /// For example:
    /// ```swift
    /// if let note = context.registeredObject(for: id), !note.isFault { print(note.changedValues()) }
    /// ```
    public func registeredObject(for id: ObjectID) -> ManagedObject? {
        checkQueue()
        return held(id)
    }

    /// The object registered for `id`, or for the permanent ID a saved temporary one became.
    func held(_ id: ObjectID) -> ManagedObject? {
        if let object = registry[id] { return object }
        guard id.isTemporary, case let permanent = registry.current(id), permanent != id else { return nil }
        return registry[permanent]
    }

    /// Inserts a new object of a typed class. Its defaults are the wrappers' initial values;
    /// `awakeFromInsert()` runs before this returns. Inserting an abstract entity's class is a
    /// programmer error (a trap).
    ///
    /// For example:
    /// ```swift
    /// let folder = context.insert(Folder.self)
    /// ```
    public func insert<T: ManagedObject>(_ type: T.Type) -> T {
        let entity: EntityDescription
        if let last = lastInsertedClass, last.type == ObjectIdentifier(type) {
            entity = last.entity
        } else {
            guard let found = model.entity(for: type) else {
                preconditionFailure("\(type) is not an entity of this context's model.")  // programmer error
            }
            precondition(!found.isAbstract, "\(found.name) is an abstract entity: insert one of its subentities (\(found.hierarchy.subentityIndexes.map { model.entities[$0].name }.joined(separator: ", "))) instead.")  // programmer error
            lastInsertedClass = (ObjectIdentifier(type), found)
            entity = found
        }
        return insertObject(of: entity) as! T  // programmer error: the entity's class is T
    }

    /// Inserts a new object of the entity named `entityName` (dynamic models); an abstract
    /// entity throws `.invalidRequest`.
    ///
    /// For example:
    /// ```swift
    /// let item = try context.insert(entityNamed: "Item")
    /// try item.setValue("Hello", forKey: "name")
    /// ```
    public func insert(entityNamed entityName: String) throws(StrataError) -> ManagedObject {
        guard let entity = model.entity(named: entityName) else {
            throw StrataError(.invalidRequest, "The model has no entity named \(entityName).", entity: entityName)
        }
        guard !entity.isAbstract else {
            throw StrataError(.invalidRequest, "\(entityName) is an abstract entity: insert one of its subentities instead.", entity: entityName)
        }
        return insertObject(of: entity)
    }

    func insertObject(of entity: EntityDescription) -> ManagedObject {
        checkQueue()
        let id = ObjectID.temporary(entity)
        let creation = ObjectCreation(
            objectID: id, attributeValues: entity.defaultAttributeValues,
            relationValues: entity.newRelationValues, isFault: false)
        let spare = spareConstruction
        spareConstruction = nil   // taken: a construction nested in an initialiser makes its own
        let (object, construction) = ObjectConstruction.make(entity, creation, collectsDefaults: true, reusing: spare)
        // Taken out one by one (moved, not copied), which leaves the record's storage for the
        // next object; `removeAll(keepingCapacity:)` cost more than the writes.
        while let (slot, value) = construction.defaults.popLast() { object.attributeValues[slot] = value }
        spareConstruction = construction
        object.setOwner(self)
        object.lifecycle.isInserted = true
        registry[id] = object
        pending.inserted.append(object)
        notePending(entity)
        if undoHistory != nil { recordInsertForUndo(object) }
        object.awakeFromInsert()
        return object
    }

    /// The object for `id`: the registered one, or a fault that reads its row when touched.
    /// Touching a fault whose row no longer exists leaves it with default values and
    /// records an `.objectNotFound` error that validation reports; use
    /// ``existingObject(with:)`` to get a typed error at once.
    public func object(with id: ObjectID) -> ManagedObject {
        checkQueue()
        catchUpPermanentIDs()
        return resolve(id)
    }

    /// The object for `id`, read from the store if needed.
    ///
    /// - Throws: `.objectNotFound` if no such object exists.
    ///
    /// For example:
    /// ```swift
    /// let note = try context.existingObject(with: noteID) as? Note
    /// ```
    public func existingObject(with id: ObjectID) throws(StrataError) -> ManagedObject {
        checkQueue()
        catchUpPermanentIDs()
        if let object = registry[id] {
            if object.lifecycle.isFault { fireFault(object) }
            if object.valueErrors[-1] == nil { return object }
            registry[id] = nil
            throw StrataError(.objectNotFound, "No \(id.entity.name) with ID \(id) exists.", entity: id.entity.name, objectID: id)
        }
        guard !id.isTemporary || parent != nil else {
            throw StrataError(.objectNotFound, "The temporary ID \(id) belongs to another context.", entity: id.entity.name, objectID: id)
        }
        let rows = try source.rows(of: id.entity, ids: [id], staleness: stalenessInterval)
        guard let row = rows.first else {
            throw StrataError(.objectNotFound, "No \(id.entity.name) with ID \(id) exists.", entity: id.entity.name, objectID: id)
        }
        let object = materialize(row, entity: id.entity)
        object.awakeFromFetch()
        return object
    }

    /// A new fault (or the registered object) for `id`.
    func resolve(_ id: ObjectID) -> ManagedObject {
        if let object = held(id) { return object }
        let id = id.isTemporary ? registry.current(id) : id   // a saved insert's fault stands under its permanent ID
        let object = constructFetched(id.entity, ObjectCreation(objectID: id, attributeValues: [], relationValues: [], isFault: true))
        object.setOwner(self)
        registry[id] = object
        return object
    }

    /// The registered object for a row, filled from the row if it was a fault or is new.
    /// Objects with unsaved changes keep them.
    func materialize(_ row: RowSnapshot, entity: EntityDescription) -> ManagedObject {
        var row = row
        return materializeReportingNew(&row, entity: entity).object
    }

    /// Like ``materialize(_:entity:)``, also saying whether the object was read just now
    /// (new or a fault), so that `awakeFromFetch` is due. One registry lookup. A new object
    /// takes the row's value arrays (the row keeps empty ones): moved, not shared, so no
    /// reference is counted for them and the object's first change copies nothing.
    func materializeReportingNew(_ row: inout RowSnapshot, entity: EntityDescription) -> (object: ManagedObject, isNew: Bool) {
        let id = row.id
        if let object = registry[id] {
            guard object.lifecycle.isFault else { return (object, false) }
            fill(object, taking: &row)
            return (object, true)
        }
        // The row's ID names its own entity: a subentity's when the fetch was of a superentity.
        let entity = id.entity.hierarchy.storesKind ? id.entity : entity
        var attributes: [PropertyValue] = [], relations: [RelationValue] = []
        swap(&attributes, &row.attributes)
        swap(&relations, &row.relationValues)
        // The arrays are moved into the object after its construction: handed through
        // `init(_:)`, each was retained and released again, and those two writes to arrays
        // read long before (cold in the cache) were a fifth of a large fetch's samples.
        let object = constructFetched(entity, ObjectCreation(objectID: id, attributeValues: [], relationValues: [], isFault: false))
        object.attributeValues = consume attributes
        object.relationValues = consume relations
        object.setOwner(self)
        object.rowVersion = row.version
        object.valueErrors = row.errors
        registry[id] = object
        adoptRowRelations(object)
        return (object, true)
    }

    /// Fills a fault from its row.
    func fill(_ object: ManagedObject, with row: RowSnapshot) {
        var row = row
        fill(object, taking: &row)
    }

    /// Fills a fault from its row, moving the row's value arrays into the object (the row
    /// keeps empty ones): no reference counted for them, and no copy at the object's first
    /// change.
    func fill(_ object: ManagedObject, taking row: inout RowSnapshot) {
        var attributes: [PropertyValue] = [], relations: [RelationValue] = []
        swap(&attributes, &row.attributes)
        swap(&relations, &row.relationValues)
        object.attributeValues = consume attributes
        object.relationValues = consume relations
        object.rowVersion = row.version
        object.valueErrors = row.errors
        object.lifecycle.isFault = false
        object.faultBatch = nil
        adoptRowRelations(object)
    }
}

/// A weak reference to a context (parents and coordinators do not keep contexts alive).
struct WeakContext: @unchecked Sendable {  // safe: only the reference is shared; the context is used on its own queue
    weak var context: ObjectContext?
    init(_ context: ObjectContext) { self.context = context }
}

extension ObjectContext {
    /// The bit of `entity` in ``pendingEntities``: its hierarchy's root's, so that a pending
    /// object of a subentity counts for a read of any entity of its hierarchy.
    static func pendingBit(_ entity: EntityDescription) -> UInt64 {
        let index = entity.hierarchy.rootIndex
        return index < 64 ? 1 << UInt64(index) : .max
    }

    /// Records that `entity` has unsaved changes here.
    func notePending(_ entity: EntityDescription) {
        // Only this queue sets bits, so a bit already set needs no atomic write (a push notes
        // the entity of each of its objects: only the first sets it).
        let bit = Self.pendingBit(entity)
        if pendingEntities.load(ordering: .relaxed) & bit != bit { pendingEntities.bitwiseOr(bit, ordering: .releasing) }
    }

    /// The ``pendingBit(_:)`` bits of the entities this context may hold unsaved changes of
    /// (all of them while a child's push waits on its queue); any queue may ask.
    func pendingBits() -> UInt64 {
        pushesInFlight.load(ordering: .acquiring) > 0 ? .max : pendingEntities.load(ordering: .acquiring)
    }

    /// Clears the record once nothing is pending (a save, a reset, a rollback, an undo back to
    /// the saved values), and the rows a child's push brought: they were kept only to pass on
    /// with this context's push of those changes.
    func clearPendingIfNone() {
        guard pending.isEmpty else { return }
        pendingEntities.store(0, ordering: .releasing)
        pushedRows = nil
    }
}

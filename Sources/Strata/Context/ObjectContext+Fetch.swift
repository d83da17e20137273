extension ObjectContext {
    /// Fetches the objects a request describes, with this context's unsaved changes folded in
    /// (unless `includesPendingChanges` is false).
    ///
    /// With a `fetchBatchSize`, only primary keys are read now; objects are faults grouped in
    /// pages, and touching one reads its whole page in one query.
    ///
    /// - Throws: `.malformedPredicate` or `.invalidRequest` for a request that does not fit the
    ///   model; `.undecodableValue` when a stored transformable value does not decode.
    ///
    /// For example:
    /// ```swift
    /// let recent = try context.fetch(FetchRequest<Note>(sortKeys: [SortKey("created", ascending: false)]))
    /// ```
    public func fetch<T: ManagedObject>(_ request: FetchRequest<T>) throws(StrataError) -> [T] {
        checkQueue()
        catchUpPermanentIDs()
        let entity = try entity(for: request)
        let plan = try FetchPlan(request, entity: entity, model: model)
        let effect = request.includesPendingChanges ? pendingEffect(on: plan) : PendingEffect()
        let pendingCount = effect.window
        let pending = pendingCount > 0
        let window: Int? = pending ? pendingCount : nil
        let asFaults = request.fetchBatchSize > 0 || request.returnsObjectsAsFaults
        var objects: [ManagedObject]
        var awakened: [ManagedObject] = []
        var refreshed = false   // whether refetched objects already took their rows
        if source.readsThroughParent {
            var below = request
            below.relationshipKeyPathsForPrefetching = []
            if pending {
                below.fetchLimit = request.fetchLimit > 0 ? request.fetchOffset + request.fetchLimit + pendingCount : 0
                below.fetchOffset = 0
            }
            let ids = try source.objectIDs(below)
            catchUpPermanentIDs()   // IDs the answer used may have been deposited while it was computed
            objects = ids.map(resolve)
            if asFaults {
                groupFaults(objects, pageSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : StoreCoordinator.keyChunk)
            } else {
                awakened = try fill(objects.filter(\.lifecycle.isFault), entity: entity)
            }
        } else if asFaults {
            let ids = try fetchKeys(plan, pendingChanges: window)
            catchUpPermanentIDs()
            objects = ids.map(resolve)
            groupFaults(objects, pageSize: request.fetchBatchSize > 0 ? request.fetchBatchSize : StoreCoordinator.keyChunk)
        } else {
            var rows = try coordinator.readRows(plan, pendingChanges: window)
            catchUpPermanentIDs()
            objects = []
            objects.reserveCapacity(rows.count)
            var old: [Int] = []   // the objects that were registered and filled already
            for i in rows.indices {   // rows in place: a new object takes its row's arrays
                if !rows[i].errors.isEmpty, let error = rows[i].errors.values.first { throw error }
                let (object, isNew) = materializeReportingNew(&rows[i], entity: entity)
                if !isNew {
                    old.append(i)
                    if request.shouldRefreshRefetchedObjects, !object.lifecycle.isInserted, !object.lifecycle.isDeleted {
                        take(rows[i], keepingChangesOf: object)   // the row is at hand: no second read
                    }
                }
                objects.append(object)
            }
            // Every object read just now is awakened; when that is all of them (a first fetch),
            // the list shares the results' storage instead of holding each object once more.
            if old.isEmpty {
                awakened = objects
            } else {
                var skipped = old[...]   // in ascending order
                awakened.reserveCapacity(objects.count - old.count)
                for i in objects.indices {
                    if skipped.first == i { skipped.removeFirst() } else { awakened.append(objects[i]) }
                }
            }
            refreshed = true
        }
        if pending { objects = foldPendingChanges(effect, into: objects, plan: plan) }
        if request.shouldRefreshRefetchedObjects && !refreshed { try refreshRefetched(objects, except: awakened, entity: entity) }
        try prefetch(request.relationshipKeyPathsForPrefetching, from: objects)
        for object in awakened { object.awakeFromFetch() }
        return Self.cast(objects, to: T.self)
    }

    /// `objects` as `T`s, leaving out those of another class. An object whose class is `T`
    /// itself (every object of the entity when `T` is its class) is cast by identity of its
    /// class, not through the runtime's generic dynamic cast.
    static func cast<T: ManagedObject>(_ objects: [ManagedObject], to type: T.Type) -> [T] {
        let exact = ObjectIdentifier(T.self)
        if objects.allSatisfy({ ObjectIdentifier(Swift.type(of: $0)) == exact }) {
            // Every element is a `T`, so the array is one of `T`s as it is: an array of class
            // references has one layout whatever its static element class (where Objective-C
            // bridging exists, the standard library's own cast reuses the storage this way).
            return unsafeBitCast(objects, to: [T].self)
        }
        var result: [T] = []
        result.reserveCapacity(objects.count)
        for object in objects {
            if ObjectIdentifier(Swift.type(of: object)) == exact {
                result.append(unsafeDowncast(object, to: T.self))
            } else if let object = object as? T {
                result.append(object)
            }
        }
        return result
    }

    /// Fetches only the IDs of the matching objects.
    ///
    /// For example:
    /// ```swift
    /// let ids = try context.fetchObjectIDs(FetchRequest<Note>())
    /// ```
    public func fetchObjectIDs<T: ManagedObject>(_ request: FetchRequest<T>) throws(StrataError) -> [ObjectID] {
        checkQueue()
        catchUpPermanentIDs()
        let entity = try entity(for: request)
        if try hasPendingEffect(request, entity: entity) {
            var faulting = request
            faulting.returnsObjectsAsFaults = true
            faulting.relationshipKeyPathsForPrefetching = []
            return try fetch(faulting).map(\.objectID)
        }
        if source.readsThroughParent { return try source.objectIDs(request) }
        return try fetchKeys(FetchPlan(request, entity: entity, model: model), pendingChanges: nil)
    }

    /// Counts the matching objects without reading them.
    ///
    /// For example:
    /// ```swift
    /// let unread = try context.count(for: FetchRequest<Note>(predicate: try ObjectPredicate("isRead == NO")))
    /// ```
    public func count<T: ManagedObject>(for request: FetchRequest<T>) throws(StrataError) -> Int {
        checkQueue()
        catchUpPermanentIDs()
        let entity = try entity(for: request)
        if source.readsThroughParent { return try fetchObjectIDs(request).count }
        if try hasPendingEffect(request, entity: entity) { return try fetchObjectIDs(request).count }
        let plan = try FetchPlan(request, entity: entity, model: model)
        let total = try coordinator.count(plan)
        let afterOffset = max(0, total - plan.offset)
        return plan.limit > 0 ? min(plan.limit, afterOffset) : afterOffset
    }

    /// Fetches plain values instead of objects: one dictionary per row with the keys of
    /// `propertiesToFetch` (all attributes when nil); to-one relationships come as `.objectID`,
    /// and key paths through to-ones (`folder.name`) under their key paths.
    ///
    /// With `expressionsToFetch`, `propertiesToGroupBy`, `havingPredicate` or
    /// `returnsDistinctResults`, the rows are computed by one SQL statement: each group (or
    /// the whole entity) is one row holding its grouped keys and its expressions by name.
    ///
    /// Reads the store only: unsaved inserts, updates and deletes of this context (and of its
    /// parents) are not included, whatever `includesPendingChanges` says, as in Core Data
    /// (aggregates are computed by SQLite over the saved rows).
    ///
    /// - Throws: `.invalidRequest` for a combination Core Data refuses too (a fetched key not
    ///   grouped by, a `sum` of a string, a to-many key or a key path through one, a sort key
    ///   that is not a result);
    ///   `.malformedPredicate` for a predicate or having predicate that does not fit.
    ///
    /// For example:
    /// ```swift
    /// var request = FetchRequest<Note>(sortKeys: [SortKey("title")])
    /// request.propertiesToFetch = ["title", "folder"]
    /// let rows = try context.fetchDictionaries(request)   // [["title": .string("Hello"), "folder": .objectID(…)]]
    /// ```
    public func fetchDictionaries<T: ManagedObject>(_ request: FetchRequest<T>) throws(StrataError) -> [[String: PropertyValue]] {
        checkQueue()
        catchUpPermanentIDs()
        let entity = try entity(for: request)
        if AggregatePlan.isNeeded(for: request) {
            if request.textSearch != nil {
                throw StrataError(.invalidRequest, "A text search cannot be combined with aggregates, grouping or distinct results; fetch the matching IDs first and filter with SELF IN %@.", entity: entity.name)
            }
            return try coordinator.readAggregates(AggregatePlan(request, entity: entity, model: model))
        }
        let plan = try FetchPlan(request, entity: entity, model: model)
        return try coordinator.readValues(plan, keys: request.propertiesToFetch ?? entity.attributes.map(\.name))
    }

    // MARK: Helpers

    func entity<T>(for request: FetchRequest<T>) throws(StrataError) -> EntityDescription {
        try request.entity(in: model)
    }


    private func fetchKeys(_ plan: FetchPlan, pendingChanges: Int?) throws(StrataError) -> [ObjectID] {
        try coordinator.readKeys(plan, pendingChanges: pendingChanges)
    }

    /// Reads the rows of `faults` (all of `entity`) in one go; returns the objects filled.
    func fill(_ faults: [ManagedObject], entity: EntityDescription) throws(StrataError) -> [ManagedObject] {
        guard !faults.isEmpty else { return [] }
        var byID: [ObjectID: RowSnapshot] = [:]
        for row in try source.rows(of: entity, ids: Array(Set(faults.map(\.objectID))), staleness: 0) {   // a fetch reads the store
            if let error = row.errors.values.first { throw error }
            byID[row.id] = row
        }
        var filled: [ManagedObject] = []
        for fault in faults where fault.lifecycle.isFault {
            guard let row = byID[fault.objectID] else { continue }
            fill(fault, with: row)
            filled.append(fault)
        }
        return filled
    }

    /// Puts faults into pages that fire together.
    func groupFaults(_ objects: [ManagedObject], pageSize: Int) {
        var start = 0
        while start < objects.count {
            let page = objects[start..<min(start + pageSize, objects.count)].filter(\.lifecycle.isFault)
            let batch = FaultBatch(members: page.map(\.objectID))
            for object in page { object.faultBatch = batch }
            start += pageSize
        }
    }

    /// Reads the relationships named by `keyPaths` for all `objects` at once, one query per
    /// relationship and level.
    private func prefetch(_ keyPaths: [String], from objects: [ManagedObject]) throws(StrataError) {
        for keyPath in keyPaths {
            var level = objects
            for key in keyPath.split(separator: ".").map(String.init) {
                guard let first = level.first else { break }
                let entity = first.entity
                guard case .relationship(let index)? = entity.propertyIndex[key] else {
                    throw StrataError(.invalidRequest, "\(entity.name) has no relationship \(key) to prefetch.", entity: entity.name, key: key)
                }
                let relationship = entity.relationships[index]
                let destination = model.entities[relationship.destinationIndex]
                let loaded = level.filter { !$0.lifecycle.isFault && !$0.lifecycle.isInserted }
                let unloaded = loaded.filter { if case .unloaded = $0.relationValues[index] { return true } else { return false } }
                if !unloaded.isEmpty {
                    let asked = unloaded.map(\.objectID)
                    let targets = try source.related(of: entity, relationship: index, ids: asked)
                    catchUpPermanentIDs()   // before the answer's IDs become objects
                    for (object, id) in zip(unloaded, asked) {
                        let objects = (targets[id] ?? []).map(resolve).filter { !$0.lifecycle.isDeleted }
                        if relationship.isToMany {
                            object.relationValues[index] = .toMany(.init(adoptToMany(object, at: index, members: objects)))
                        } else {
                            adoptToOne(object, at: index, target: objects.first?.objectID, previous: nil)
                            object.relationValues[index] = .toOne(objects.first)
                        }
                    }
                }
                let next = loaded.flatMap { relationship.isToMany ? Array($0.toMany(at: index)) : ($0.toOne(at: index).map { [$0] } ?? []) }
                for object in try fill(next.filter(\.lifecycle.isFault), entity: destination) { object.awakeFromFetch() }
                level = next
            }
        }
    }
}

extension ObjectContext {
    /// Runs a batch insert on this context's store (it bypasses the context: fetch to see the rows).
    ///
    /// For example:
    /// ```swift
    /// let ids = try context.execute(BatchInsertRequest(entityName: "Tag", objects: [["label": .string("red")]]))
    /// ```
    public func execute(_ request: BatchInsertRequest) throws(StrataError) -> [ObjectID] {
        checkQueue()
        return try coordinator.execute(request)
    }
}

extension ObjectContext {
    /// The objects for `ids`, in order: registered ones as they are, faults for the rest,
    /// grouped per entity so that touching one reads them all (500 rows per query) instead of
    /// one row per object.
    ///
    /// For example:
    /// ```swift
    /// let notes = context.objects(with: changes.inserted.filter { $0.entity.name == "Note" })
    /// ```
    public func objects(with ids: [ObjectID]) -> [ManagedObject] {
        checkQueue()
        catchUpPermanentIDs()
        let objects = ids.map(resolve)
        var byEntity: [Int: [ManagedObject]] = [:]
        for object in objects where object.lifecycle.isFault && object.faultBatch == nil { byEntity[object.entity.index, default: []].append(object) }
        for group in byEntity.values { groupFaults(group, pageSize: StoreCoordinator.keyChunk) }
        return objects
    }
}

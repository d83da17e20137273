/// Where a context reads what it does not hold: its parent (which answers from its own
/// objects, unsaved changes included, or from its own source) or, for a root, the store.
/// A child asks its parent synchronously on the parent's queue, as Core Data does.
extension ObjectContext {
    /// Runs `body` on the context's queue and waits (inline when already there).
    func syncOnQueue<T>(_ body: () throws(StrataError) -> T) throws(StrataError) -> T {
        var result: Result<T, StrataError>?
        queue.sync {
            catchUpPermanentIDs()   // answer under the IDs the asking child may already use
            result = Result { () throws(StrataError) -> T in try body() }
        }
        guard let result else { throw StrataError(.storeFailure, "The work did not run on \(name).") }
        return try result.get()
    }

    // MARK: Asking below

    /// The rows of `ids` as the layer below holds them. IDs with no row are absent.
    func sourceRows(of entity: EntityDescription, ids: [ObjectID]) throws(StrataError) -> [RowSnapshot] {
        if let parent, ids.contains(where: \.isTemporary) || ancestorsMayHavePending(entity) {
            return try parent.syncOnQueue { () throws(StrataError) -> [RowSnapshot] in try parent.snapshots(of: entity, ids: ids) }
        }
        let keys = ids.compactMap(\.primaryKey)
        return keys.isEmpty ? [] : try coordinator.readRows(of: entity, keys: keys)
    }

    /// The destinations of relationship `index` of each of `ids`, as the layer below holds them.
    func sourceRelated(of entity: EntityDescription, relationship index: Int, ids: [ObjectID]) throws(StrataError) -> [ObjectID: [ObjectID]] {
        if let parent, ids.contains(where: \.isTemporary)
            || ancestorsMayHavePending(entity, model.entities[entity.relationships[index].destinationIndex]) {
            return try parent.syncOnQueue { () throws(StrataError) -> [ObjectID: [ObjectID]] in try parent.related(of: entity, relationship: index, ids: ids) }
        }
        let keys = ids.compactMap(\.primaryKey)
        guard !keys.isEmpty else { return [:] }
        let destination = model.entities[entity.relationships[index].destinationIndex]
        var result: [ObjectID: [ObjectID]] = [:]
        for pair in try coordinator.readRelatedKeys(of: entity, relationship: index, keys: keys) {
            result[ObjectID(entity: entity, key: pair.source), default: []].append(ObjectID(entity: destination, key: pair.target))
        }
        return result
    }

    /// The IDs a request matches below this context (a child's parent includes its own
    /// unsaved changes when the request does).
    func sourceObjectIDs<T>(_ request: FetchRequest<T>) throws(StrataError) -> [ObjectID] {
        guard let parent else { throw StrataError(.invalidRequest, "A root context reads IDs from the store directly.") }
        return try parent.syncOnQueue { () throws(StrataError) -> [ObjectID] in try parent.fetchObjectIDs(request) }
    }

    // MARK: Answering children

    /// Snapshots of `ids` for a child: registered, loaded objects as they are now (unsaved
    /// changes included, deleted ones absent), the rest from below.
    func snapshots(of entity: EntityDescription, ids: [ObjectID]) throws(StrataError) -> [RowSnapshot] {
        var result: [RowSnapshot] = []
        var missing: [ObjectID] = []
        var askedAs: [ObjectID: ObjectID] = [:]   // permanent ID → the temporary one a child still uses
        for id in ids {
            let current = id.isTemporary ? (permanentIDByTemporary[id] ?? id) : id
            if current != id { askedAs[current] = id }
            if let object = registered[current], !object.lifecycle.isFault {
                if object.lifecycle.isDeleted || object.valueErrors[-1] != nil { continue }
                var row = snapshot(of: object)
                row.id = id                        // answer under the ID the child asked with
                result.append(row)
            } else {
                missing.append(current)
            }
        }
        if !missing.isEmpty {
            for var row in try sourceRows(of: entity, ids: missing) {
                if let asked = askedAs[row.id] { row.id = asked }
                result.append(row)
            }
        }
        return result
    }

    /// An object's current state as a snapshot.
    func snapshot(of object: ManagedObject) -> RowSnapshot {
        let relations = object.relationValues.map { value -> RowSnapshot.Relation in
            switch value {
            case .toOne(let target): .toOne(target?.objectID)
            case .toOneID(let id): .toOne(id)
            case .unloaded, .toMany: .unloaded
            }
        }
        return RowSnapshot(id: object.objectID, version: object.rowVersion, attributes: object.attributeValues,
                           relations: relations, errors: object.valueErrors.filter { $0.key >= 0 })
    }

    /// Relationship destinations for a child: from loaded objects here, the rest from below.
    func related(of entity: EntityDescription, relationship index: Int, ids: [ObjectID]) throws(StrataError) -> [ObjectID: [ObjectID]] {
        var result: [ObjectID: [ObjectID]] = [:]
        var missing: [ObjectID] = []
        var askedAs: [ObjectID: ObjectID] = [:]
        for id in ids {
            let current = id.isTemporary ? (permanentIDByTemporary[id] ?? id) : id
            if current != id { askedAs[current] = id }
            guard let object = registered[current], !object.lifecycle.isFault else { missing.append(current); continue }
            switch object.relationValues[index] {
            case .toMany(let targets): result[id] = targets.filter { !$0.lifecycle.isDeleted }.map(\.objectID)
            case .toOne(let target): result[id] = target.map { [$0.objectID] } ?? []
            case .toOneID(let target): result[id] = target.map { [$0] } ?? []
            case .unloaded: missing.append(id)
            }
        }
        if !missing.isEmpty {
            let below = try sourceRelated(of: entity, relationship: index, ids: missing)
            for id in missing { result[askedAs[id] ?? id] = (below[id] ?? []).filter { registered[$0]?.lifecycle.isDeleted != true } }
        }
        return result
    }
}
